from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    ColumnElement,
    ForeignKey,
    Index,
    String,
    Text,
    UniqueConstraint,
    and_,
    false,
    literal_column,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.core.models.projects import Project, State
from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class Priority(StrEnum):
    URGENT = "urgent"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NONE = "none"


class TaskKind(StrEnum):
    TASK = "task"
    BUG = "bug"
    FEATURE = "feature"
    EPIC = "epic"


def counted_rule(task: Any) -> list[ColumnElement[bool]]:
    """The rule of "the tasks that count" (docs/analytics.md#which-tasks-count), the one
    place it is written: not in triage, not a draft, not archived, not deleted.

    ``task`` is anything that has the task's columns as attributes: the ``Task`` model
    (the analytics scope, PQL's ``isCounted()``), or a row of SQL text (the partial
    indexes below, and the rollup triggers a test holds to it: :func:`counted_sql`).
    Every condition is literal: a bound parameter, or ``NOT is_draft``, would keep the
    planners from matching the partial indexes stated with it."""
    return [
        task.state_category != literal_column("'triage'"),
        task.is_draft == false(),
        task.archived_at.is_(None),
        task.deleted_at.is_(None),
    ]


class _Row:
    """The task's columns as SQL text, qualified by ``row`` (``NEW``, an alias) or bare."""

    def __init__(self, row: str) -> None:
        self._prefix = f"{row}." if row else ""

    def __getattr__(self, name: str) -> Any:
        return literal_column(self._prefix + name)


_DIALECTS = {"sqlite": sqlite.dialect(), "postgresql": postgresql.dialect()}


def counted_sql(dialect: str, row: str = "") -> str:
    """:func:`counted_rule` as ``dialect``'s SQL text, over ``row``'s columns."""
    condition = and_(*counted_rule(_Row(row)))
    return str(
        condition.compile(dialect=_DIALECTS[dialect], compile_kwargs={"literal_binds": True})
    )


# The predicate of "the tasks that count", exactly as SQLAlchemy renders the scope query
# so both planners can match the partial index (see docs/analytics.md).
COUNTED_TASKS_PREDICATE = {dialect: counted_sql(dialect) for dialect in _DIALECTS}


def _entered_at_default(context: Any) -> datetime:
    """A row inserted without it has had no state change yet: it entered its state
    when it was created."""
    return context.get_current_parameters().get("created_at") or utcnow()


# The completed ones among the tasks that count, written as the workload query renders it.
COMPLETED_TASKS_PREDICATE = {
    dialect: f"{predicate} AND state_category = 'completed'"
    for dialect, predicate in COUNTED_TASKS_PREDICATE.items()
}


class Task(db.Model):
    __tablename__ = "tasks"
    __table_args__ = (
        UniqueConstraint("project_id", "sequence"),
        # Covering partial index for whole-org rollups: index-only scans on PostgreSQL.
        Index(
            "ix_tasks_counted",
            "org_id",
            "state_category",
            "priority",
            "kind",
            "assignee_id",
            "due_date",
            "project_id",
            "state_id",
            "completed_at",
            # Constant in the index; SQLite calls it covering only with them listed.
            "is_draft",
            "archived_at",
            "deleted_at",
            sqlite_where=text(COUNTED_TASKS_PREDICATE["sqlite"]),
            postgresql_where=text(COUNTED_TASKS_PREDICATE["postgresql"]),
        ),
        # Workload's completions in the last 30 days: a range read by org and
        # completion time over completed tasks only (docs/analytics.md#how-it-stays-fast).
        Index(
            "ix_tasks_completed",
            "org_id",
            "completed_at",
            "assignee_id",
            "state_category",
            "is_draft",
            "archived_at",
            "deleted_at",
            sqlite_where=text(COMPLETED_TASKS_PREDICATE["sqlite"]),
            postgresql_where=text(COMPLETED_TASKS_PREDICATE["postgresql"]),
        ),
        # Time series by creation (docs/analytics.md#time): a range read by org and
        # creation time over the tasks that count, index-only for a count per bucket.
        Index(
            "ix_tasks_created",
            "org_id",
            "created_at",
            "state_category",
            "project_id",
            "is_draft",
            "archived_at",
            "deleted_at",
            sqlite_where=text(COUNTED_TASKS_PREDICATE["sqlite"]),
            postgresql_where=text(COUNTED_TASKS_PREDICATE["postgresql"]),
        ),
        Index("ix_tasks_project_state", "project_id", "state_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    #: Denormalized from the project so org-wide rollups need no join.
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    project_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    #: Per-project number shown as ``IDENT-123``.
    sequence: Mapped[int]
    title: Mapped[str] = mapped_column(String(500))
    description: Mapped[str] = mapped_column(Text, default="")
    state_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("states.id"))
    #: Denormalized category of ``state_id``; written with every state change.
    state_category: Mapped[str] = mapped_column(String(16))
    #: When the task entered its current state: the time of its latest ``state``
    #: history row, else its creation. Written in the same UPDATE as every state
    #: change (flow reads it instead of the history; docs/analytics.md#flow).
    state_entered_at: Mapped[datetime] = mapped_column(
        UTCDateTime(), default=_entered_at_default, nullable=False
    )
    priority: Mapped[str] = mapped_column(String(16), default=Priority.NONE)
    kind: Mapped[str] = mapped_column(String(16), default=TaskKind.TASK)
    #: A person or an agent; null when unassigned.
    assignee_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    cycle_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("cycles.id", ondelete="SET NULL"), index=True
    )
    module_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("modules.id", ondelete="SET NULL"), index=True
    )
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    due_date: Mapped[date | None]
    is_draft: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = created_at_column()
    #: Set when the task enters the completed category, cleared when it leaves.
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Soft delete: the row and its history stay for audit.
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    state: Mapped[State] = relationship(lazy="joined")
    project: Mapped[Project] = relationship(lazy="joined")

    @property
    def key(self) -> str:
        """``WEB-12``: the project's identifier and the task's number."""
        return f"{self.project.identifier}-{self.sequence}"

    @property
    def state_name(self) -> str:
        return self.state.name


class TaskActivity(db.Model):
    """One change of one field of a task. State changes also carry old and new
    categories, which flow age and forecast read."""

    __tablename__ = "task_activity"
    __table_args__ = (
        Index("ix_task_activity_task_created", "task_id", "created_at"),
        # Forecast and flow read status changes by category and time.
        Index(
            "ix_task_activity_state_changes",
            "org_id",
            "new_category",
            "created_at",
            "task_id",
            sqlite_where=text("field = 'state'"),
            postgresql_where=text("field = 'state'"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    task_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"))
    #: Person or agent who made the change.
    actor_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: ``created``, ``state``, ``title``, ``priority``, ``assignee`` ...
    field: Mapped[str] = mapped_column(String(32))
    old_value: Mapped[str | None] = mapped_column(String(500))
    new_value: Mapped[str | None] = mapped_column(String(500))
    old_category: Mapped[str | None] = mapped_column(String(16))
    new_category: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()


#: An activity row's columns in table order: what the bulk writers of history fill (a
#: state recategorized in SQL, ``flask bench-data``).
ACTIVITY_COLUMNS = (
    "id",
    "org_id",
    "task_id",
    "actor_id",
    "field",
    "old_value",
    "new_value",
    "old_category",
    "new_category",
    "created_at",
)


class Comment(db.Model):
    __tablename__ = "comments"

    id: Mapped[uuid.UUID] = uuid_pk()
    task_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("tasks.id", ondelete="CASCADE"), index=True
    )
    author_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at_column()
    #: Set when the author edits the body (the timeline says "edited").
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Soft delete: the timeline keeps "comment deleted" in its place.
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
