"""Who is calling, as stored: browser sessions and personal access tokens. Both
belong to an account (core); core never imports them."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.core.models import Account
from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class AuthSession(db.Model):
    """A browser session. The cookie carries a random id; this row holds its hash,
    so a session can be revoked server-side (logout, deactivation)."""

    __tablename__ = "auth_sessions"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: How the session was obtained: password, sso, ldap.
    method: Mapped[str] = mapped_column(String(16), default="password")
    user_agent: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = created_at_column()
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: The strictest idle timeout among the account's orgs when the policy was last
    #: applied (docs/security.md#sessions); None: no idle limit.
    idle_timeout_minutes: Mapped[int | None] = mapped_column()
    #: For an SSO sign-in: the org whose connection signed it in, and the IdP's
    #: ``sub`` and ``sid``, so a back-channel logout finds it (docs/sso.md#sign-out).
    sso_org_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("orgs.id", ondelete="SET NULL"), index=True
    )
    idp_sub: Mapped[str | None] = mapped_column(String(255))
    idp_sid: Mapped[str | None] = mapped_column(String(255))
    #: The id_token of that sign-in, AES-GCM sealed with this row's id: the
    #: ``id_token_hint`` of an RP-initiated logout, never shown.
    idp_id_token_sealed: Mapped[str | None] = mapped_column(Text)

    account: Mapped[Account] = relationship(lazy="joined")


class ApiToken(db.Model):
    """A personal access token (``ws_...``) bound to one account in one org."""

    __tablename__ = "api_tokens"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    #: First characters of the raw token, safe to display.
    prefix: Mapped[str] = mapped_column(String(16))
    #: SHA-256 of the raw token; the raw value is shown once and never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    account: Mapped[Account] = relationship(lazy="joined")


class IdentitySource(StrEnum):
    """An org's identity sources an account can be linked to."""

    SSO = "sso"
    LDAP = "ldap"
    SCIM = "scim"


class AccountIdentityLink(db.Model):
    """An account that an org's identity source may sign in (SSO, LDAP) or provision
    (SCIM): made when the source creates the account, when it meets a bare account, or
    when the account's holder confirms the link
    (docs/security.md#identity-trust-and-account-linking)."""

    __tablename__ = "account_identity_links"
    __table_args__ = (UniqueConstraint("account_id", "org_id", "source"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: sso, ldap or scim (:class:`IdentitySource`).
    source: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()


class PendingIdentityLink(db.Model):
    """A sign-in through an org's source that waits for the account's holder to
    confirm the link. The browser that signed in holds the raw token (a cookie); this
    row holds its hash, the org and source it is bound to, and a short expiry."""

    __tablename__ = "pending_identity_links"

    id: Mapped[uuid.UUID] = uuid_pk()
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    source: Mapped[str] = mapped_column(String(16))
    #: Where the sign-in was going (a safe relative path), kept for after confirmation.
    next_path: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = created_at_column()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    account: Mapped[Account] = relationship(lazy="joined")


class SignInLink(db.Model):
    """A one-time sign-in link an admin hands to an invited person (no mail delivery).
    The raw token is shown once; this row holds its hash, the org it was made for and
    a short expiry. Using it marks it used, so it works once."""

    __tablename__ = "sign_in_links"

    id: Mapped[uuid.UUID] = uuid_pk()
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    account: Mapped[Account] = relationship(lazy="joined", foreign_keys=[account_id])
