from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.core.models.projects import SYNC_SOURCE_LABELS
from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


def zone_named(name: str | None) -> ZoneInfo:
    """The IANA zone ``name``; UTC for none or a name this system does not know (a
    zone database without it), so a page or a report never fails on the setting."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


class OrgRole(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"

    @property
    def manages_settings(self) -> bool:
        return self in (OrgRole.OWNER, OrgRole.ADMIN)


class Org(db.Model):
    __tablename__ = "orgs"

    id: Mapped[uuid.UUID] = uuid_pk()
    #: URL-safe handle, unique across the service (``acme``).
    slug: Mapped[str] = mapped_column(String(63), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    #: IANA zone used for "today" in analytics (overdue); UTC unless changed.
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: The weekday a week starts on in time series (``monday`` .. ``sunday``; migration
    #: 0022); read it through ``analytics.time_series.week_start_day``.
    week_start: Mapped[str] = mapped_column(String(9), default="monday", server_default="monday")
    #: Session policy (docs/security.md#sessions): the longest a sign-in lasts, in
    #: hours, and how long a session may go without a request, in minutes. None: the
    #: service's default lifetime, and no idle limit.
    session_max_hours: Mapped[int | None] = mapped_column()
    session_idle_minutes: Mapped[int | None] = mapped_column()
    created_at: Mapped[datetime] = created_at_column()

    members: Mapped[list[OrgMember]] = relationship(back_populates="org", lazy="raise_on_sql")

    @property
    def zone(self) -> ZoneInfo:
        """The zone of ``timezone``: what "today" is in analytics and overdue, and the
        zone every page writes a moment in."""
        return zone_named(self.timezone)

    def __repr__(self) -> str:
        return f"<Org {self.slug}>"


class OrgMember(db.Model):
    """An account's membership of an org. Deactivation keeps the row (SCIM needs a
    stable id across deactivate/reactivate) and flips ``active``."""

    __tablename__ = "org_members"
    __table_args__ = (UniqueConstraint("org_id", "account_id"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    #: owner, admin or member (:class:`OrgRole`).
    role: Mapped[str] = mapped_column(String(16), default=OrgRole.MEMBER)
    active: Mapped[bool] = mapped_column(default=True)
    #: How the person first joined: password, sso, ldap, scim, agent, invite or manual.
    joined_via: Mapped[str] = mapped_column(String(16), default="manual")
    #: Who set ``role`` (docs/sso.md#org-role-from-groups): None, the role they joined
    #: with; "manual", a person changed it (group sync never touches it then); "synced",
    #: a group mapping made them admin (and takes it back when the group goes).
    role_source: Mapped[str | None] = mapped_column(String(16))
    #: For a synced role: the granting group and its source (sso, ldap or scim).
    synced_group: Mapped[str | None] = mapped_column(String(255))
    synced_source: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()
    deactivated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    org: Mapped[Org] = relationship(back_populates="members")
    account: Mapped["Account"] = relationship(lazy="joined")  # noqa: UP037, F821

    @property
    def org_role(self) -> OrgRole:
        return OrgRole(self.role)

    @property
    def role_synced(self) -> bool:
        return self.role_source == "synced"

    @property
    def role_synced_from(self) -> str | None:
        """For a role a group granted: "SCIM group Admins" (the members page shows it)."""
        if not self.role_synced or not self.synced_group:
            return None
        return f"{SYNC_SOURCE_LABELS.get(self.synced_source or '', 'group')} {self.synced_group}"
