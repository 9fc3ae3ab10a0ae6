"""What SCIM provisioning stores beside the core tables: the org's bearer token and,
per provisioned member, the SCIM attributes the IdP owns (RFC 7643 §4.1)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class ScimToken(db.Model):
    """The one bearer token an org's IdP uses (docs/scim.md#token-lifecycle). Generating a new one
    rewrites this row, which is what revokes the old value."""

    __tablename__ = "scim_tokens"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), unique=True
    )
    #: First characters of the raw token, safe to display.
    prefix: Mapped[str] = mapped_column(String(16))
    #: SHA-256 of the raw ``scim_...`` value; the raw value is shown once.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ScimIdentity(db.Model):
    """A member as the IdP sees it. The SCIM id is the membership's id, so it
    survives deactivation and reactivation; this row keeps what only SCIM knows."""

    __tablename__ = "scim_identities"
    __table_args__ = (
        # A userName names one live resource per org (RFC 7643 §4.1.1 uniqueness
        # "server"); the database decides between racing creations.
        Index(
            "uq_scim_identities_org_user_name",
            "org_id",
            "user_name_key",
            unique=True,
            sqlite_where=text("deleted_at IS NULL"),
            postgresql_where=text("deleted_at IS NULL"),
        ),
        Index("ix_scim_identities_org_external_id", "org_id", "external_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    member_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("org_members.id", ondelete="CASCADE"), unique=True
    )
    #: userName as the IdP spelled it.
    user_name: Mapped[str] = mapped_column(String(320))
    #: userName lowercased: the form uniqueness and filters compare.
    user_name_key: Mapped[str] = mapped_column(String(320))
    #: The IdP's own id for the user (RFC 7643 §3.1), echoed back.
    external_id: Mapped[str | None] = mapped_column(String(255))
    #: name, displayName and emails as last written by the IdP.
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: `` type:value `` pairs of the emails, lowercased and space separated, so that
    #: ``emails[type eq "work"].value eq`` filters run in SQL on both databases.
    email_keys: Mapped[str] = mapped_column(String(4000), default="")
    #: Set by DELETE: the resource answers 404 from then on (RFC 7644 §3.6).
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ScimOAuthClient(db.Model):
    """The org's OAuth 2.0 client for SCIM (docs/scim.md#client-credentials): one per
    org, its id is public, its secrets are :class:`ScimOAuthSecret` rows."""

    __tablename__ = "scim_oauth_clients"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), unique=True
    )
    #: ``scimc_...``: what the IdP sends as ``client_id``; not a secret.
    client_id: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ScimOAuthSecret(db.Model):
    """One client secret. At most two are live at once, so the IdP can be moved to a
    new one before the old one is revoked or expires."""

    __tablename__ = "scim_oauth_secrets"

    id: Mapped[uuid.UUID] = uuid_pk()
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("scim_oauth_clients.id", ondelete="CASCADE"), index=True
    )
    prefix: Mapped[str] = mapped_column(String(16))
    #: SHA-256 of the raw ``scimcs_...`` value; the raw value is shown once.
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ScimAccessToken(db.Model):
    """An access token issued by the token endpoint. Revoking its secret (or the
    client) revokes it: the rows go with the secret."""

    __tablename__ = "scim_access_tokens"

    id: Mapped[uuid.UUID] = uuid_pk()
    secret_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("scim_oauth_secrets.id", ondelete="CASCADE"), index=True
    )
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: SHA-256 of the raw ``scimat_...`` value, which only the IdP holds.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()
