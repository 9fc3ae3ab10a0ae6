"""SSO records: the org's OIDC connection and the short-lived sign-in attempts that
back the signed state (group mappings live in workspace.identity.groupsync)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, text, true
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class SsoConnection(db.Model):
    """One OIDC identity provider per org (docs/sso.md#connection-settings).

    The email domain is unique across orgs where it routes anyone: among enabled
    connections. Enabling needs the domain verified by the org, and a domain is
    verified by one org at most, so the live routing is unambiguous; a draft of an
    org that never verified the domain can neither block the org that does nor
    route anyone.
    """

    __tablename__ = "sso_connections"
    __table_args__ = (
        Index(
            "uq_sso_connections_enabled_email_domain",
            "email_domain",
            unique=True,
            sqlite_where=text("enabled"),
            postgresql_where=text("enabled"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), unique=True
    )
    #: Lowercased, normalized like verified domains; unique among enabled connections.
    email_domain: Mapped[str] = mapped_column(String(253), index=True)
    #: Without a trailing slash; discovery lives under it.
    issuer_url: Mapped[str] = mapped_column(String(500))
    client_id: Mapped[str] = mapped_column(String(500))
    #: AES-256-GCM sealed with this row's id as associated data; never leaves the server.
    client_secret_sealed: Mapped[str] = mapped_column(String(2000))
    redirect_uri: Mapped[str] = mapped_column(String(500))
    enabled: Mapped[bool] = mapped_column(default=False)
    sync_groups_on_login: Mapped[bool] = mapped_column(default=True)
    #: Name of the claim holding the user's groups (userinfo, else id_token).
    groups_claim: Mapped[str] = mapped_column(String(100), default="groups")
    remove_stale_synced_memberships: Mapped[bool] = mapped_column(default=False)
    #: Scopes requested beside ``openid email profile``, space-separated (``groups``
    #: for a Keycloak whose groups scope is optional); normalized by the service.
    extra_scopes: Mapped[str] = mapped_column(String(200), default="", server_default="")
    #: Signing out of an SSO session also ends it at the IdP (RP-initiated logout),
    #: when the provider advertises ``end_session_endpoint`` (docs/sso.md#sign-out).
    idp_logout: Mapped[bool] = mapped_column(default=True, server_default=true())
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class SsoLogoutToken(db.Model):
    """A back-channel logout token's ``jti`` already acted on, kept until the token
    would have expired so a replay is refused (docs/sso.md#sign-out)."""

    __tablename__ = "sso_logout_tokens"
    __table_args__ = (UniqueConstraint("org_id", "jti"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    jti: Mapped[str] = mapped_column(String(255))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class SsoAttempt(db.Model):
    """One started sign-in. The signed state names it; it keeps what must not travel
    through the browser (PKCE verifier, nonce) and makes the state single-use."""

    __tablename__ = "sso_attempts"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    nonce: Mapped[str] = mapped_column(String(100))
    #: PKCE code_verifier (RFC 7636 §4.1), sealed with this row's id.
    code_verifier_sealed: Mapped[str] = mapped_column(String(500))
    #: SHA-256 of the random value in the browser-binding cookie.
    browser_hash: Mapped[str] = mapped_column(String(64))
    #: Where to go after sign-in: a same-origin relative path.
    next_path: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = created_at_column()
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
