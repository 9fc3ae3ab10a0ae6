"""The org's one LDAP / Active Directory connection (docs/ldap.md#connection-settings)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk

DEFAULT_EMAIL_ATTRIBUTE = "mail"
DEFAULT_GIVEN_NAME_ATTRIBUTE = "givenName"
DEFAULT_FAMILY_NAME_ATTRIBUTE = "sn"
#: Hourly, as GitLab syncs groups; an admin may choose another period or 0 (off).
DEFAULT_SYNC_MINUTES = 60


class LdapConnection(db.Model):
    """Where and how to check an org's directory credentials."""

    __tablename__ = "ldap_connections"

    id: Mapped[uuid.UUID] = uuid_pk()
    #: Unique: one connection per org (docs/ldap.md#connection-settings).
    org_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), unique=True
    )
    #: ``ldap://host[:port]`` or ``ldaps://host[:port]``.
    server_uri: Mapped[str] = mapped_column(String(500))
    #: The service account that searches for people.
    bind_dn: Mapped[str] = mapped_column(String(500))
    #: The service account's password, sealed with this row's id (docs/security.md).
    bind_password_sealed: Mapped[str | None] = mapped_column(Text)
    search_base: Mapped[str] = mapped_column(String(500))
    #: An RFC 4515 filter holding ``{username}``, e.g. ``(uid={username})``.
    search_filter: Mapped[str] = mapped_column(String(1000))
    email_attribute: Mapped[str] = mapped_column(String(100), default=DEFAULT_EMAIL_ATTRIBUTE)
    given_name_attribute: Mapped[str] = mapped_column(
        String(100), default=DEFAULT_GIVEN_NAME_ATTRIBUTE
    )
    family_name_attribute: Mapped[str] = mapped_column(
        String(100), default=DEFAULT_FAMILY_NAME_ATTRIBUTE
    )
    #: StartTLS on ``ldap://``; ``ldaps://`` is always TLS.
    use_tls: Mapped[bool] = mapped_column(default=True)
    #: PEM CA bundle that signs the directory's certificate; none: the system's.
    ca_cert: Mapped[str | None] = mapped_column(Text)
    #: Directory group sync (docs/ldap.md#group-sync): the same mappings and reconcile
    #: rules as SSO group sync, fed by the person's directory groups at sign-in.
    sync_groups_on_login: Mapped[bool] = mapped_column(default=False)
    remove_stale_synced_memberships: Mapped[bool] = mapped_column(default=False)
    #: Where groups live; none: the search base.
    group_search_base: Mapped[str | None] = mapped_column(String(500))
    #: How membership is read: ``auto``, ``memberof`` (AD, nested via
    #: LDAP_MATCHING_RULE_IN_CHAIN), ``groupofnames`` or ``posixgroup``.
    group_membership: Mapped[str] = mapped_column(String(16), default="auto")
    #: Scheduled directory sync (docs/ldap.md#scheduled-sync): every this many
    #: minutes; 0 turns it off.
    sync_every_minutes: Mapped[int] = mapped_column(
        default=DEFAULT_SYNC_MINUTES, server_default=str(DEFAULT_SYNC_MINUTES)
    )
    #: When the last sync (scheduled or "Run sync now") ended, and how it went:
    #: ``{ok, message, counts, job_id}`` (no secrets: the directory's own words).
    last_sync_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_sync: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    @property
    def has_bind_password(self) -> bool:
        return bool(self.bind_password_sealed)

    def __repr__(self) -> str:  # never the password
        return f"<LdapConnection {self.server_uri} org={self.org_id}>"


def connection_for(org_id: uuid.UUID) -> LdapConnection | None:
    return db.session.scalar(select(LdapConnection).where(LdapConnection.org_id == org_id))
