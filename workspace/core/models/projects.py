from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class StateCategory(StrEnum):
    BACKLOG = "backlog"
    UNSTARTED = "unstarted"
    STARTED = "started"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    #: Hidden intake: analytics never counts tasks in triage.
    TRIAGE = "triage"


#: The categories analytics reports on, in workflow order.
COUNTED_CATEGORIES = (
    StateCategory.BACKLOG,
    StateCategory.UNSTARTED,
    StateCategory.STARTED,
    StateCategory.COMPLETED,
    StateCategory.CANCELLED,
)


#: Categories that still hold work ("open" on every page: home, lists, analytics' WIP).
OPEN_CATEGORIES = (StateCategory.BACKLOG, StateCategory.UNSTARTED, StateCategory.STARTED)
#: Categories of finished work.
CLOSED_CATEGORIES = (StateCategory.COMPLETED, StateCategory.CANCELLED)


class ProjectRole(StrEnum):
    VIEWER = "viewer"
    COMMENTER = "commenter"
    MEMBER = "member"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return _RANKS[self]


_RANKS = {
    ProjectRole.VIEWER: 1,
    ProjectRole.COMMENTER: 2,
    ProjectRole.MEMBER: 3,
    ProjectRole.ADMIN: 4,
}


class MembershipSource(StrEnum):
    MANUAL = "manual"
    SYNCED = "synced"


class Project(db.Model):
    __tablename__ = "projects"
    __table_args__ = (UniqueConstraint("org_id", "identifier"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    #: Short key shown before task numbers (``WEB-12``); unique in the org.
    identifier: Mapped[str] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(2000), default="")
    #: Next task number; bumped in the same transaction that creates a task.
    next_sequence: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = created_at_column()
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    # The database cascades deletes (ON DELETE CASCADE); the ORM must not null them.
    states: Mapped[list[State]] = relationship(
        back_populates="project",
        order_by="State.position",
        lazy="raise_on_sql",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


#: How a synced membership names its group's source (None: synced before sources
#: were recorded, shown as "group <name>").
SYNC_SOURCE_LABELS = {"scim": "SCIM group", "sso": "SSO group", "ldap": "Directory group"}


class ProjectMember(db.Model):
    __tablename__ = "project_members"
    __table_args__ = (UniqueConstraint("project_id", "account_id"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    project_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    #: viewer, commenter, member or admin (:class:`ProjectRole`, ranked 1..4).
    role: Mapped[str] = mapped_column(String(16), default=ProjectRole.MEMBER)
    #: manual (added by a person) or synced (owned by IdP group sync).
    source: Mapped[str] = mapped_column(String(16), default=MembershipSource.MANUAL)
    #: The IdP group whose mapping owns a synced membership (shown on the members page).
    synced_group: Mapped[str | None] = mapped_column(String(255))
    #: Where that group comes from: sso, ldap or scim (None: synced before sources
    #: were recorded). The members page says "SCIM group Backend".
    synced_source: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()

    account: Mapped["Account"] = relationship(lazy="joined")  # noqa: UP037, F821

    #: Whether the person is an active member of the org, as ``projects.
    #: list_project_members`` reads it (not a column: deactivation ends the org
    #: membership and keeps this row, with no access, until someone removes it).
    org_active = True

    @property
    def synced_from(self) -> str | None:
        """The granting group with its source, as people read it: "SCIM group Backend",
        "SSO group leads", "Directory group cn=ops,..."."""
        if not self.synced_group:
            return None
        return f"{SYNC_SOURCE_LABELS.get(self.synced_source or '', 'group')} {self.synced_group}"


class State(db.Model):
    """A workflow state of one project (``In review``), in exactly one category."""

    __tablename__ = "states"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    project_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    category: Mapped[str] = mapped_column(String(16))
    color: Mapped[str] = mapped_column(String(16), default="#8b8fa3")
    position: Mapped[int] = mapped_column(default=0)
    #: The state new tasks get when none is given.
    is_default: Mapped[bool] = mapped_column(default=False)

    project: Mapped[Project] = relationship(back_populates="states")


class Cycle(db.Model):
    """A time-boxed iteration (sprint) of a project."""

    __tablename__ = "cycles"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    project_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    start_date: Mapped[date | None]
    end_date: Mapped[date | None]
    created_at: Mapped[datetime] = created_at_column()


class Module(db.Model):
    """A feature area of a project that groups tasks across cycles."""

    __tablename__ = "modules"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    project_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(String(2000), default="")
    created_at: Mapped[datetime] = created_at_column()
