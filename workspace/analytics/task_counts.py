"""The maintained rollups of the tasks that count (docs/analytics.md#maintained-rollups)
and the reads they answer; :mod:`workspace.analytics.consistency` checks and repairs them.

``task_counts`` holds one row per org, project, state, priority, kind and assignee
with how many counted tasks fall there and the sum of their state-entry times (whole
milliseconds since 2020-01-01). Database triggers written by migration
``0007_task_counts`` keep it exact in the same transaction as every insert, update and
delete of a task, on SQLite and PostgreSQL alike, so no code path can forget it.

Each bucket is split into slots (migrations 0036 and 0038, docs/scaling.md#hot-writes):
on PostgreSQL every writing transaction adds its signed deltas to a slot no other open
transaction holds, so writers of one project do not queue on a row; a slot may hold
zero or a negative count, every read sums a bucket's slots, and an hourly job folds
them back into slot 0. SQLite has one writer, slot 0, and deletes a row that falls to
zero.

A rollup statement written over ``Task`` reads these tables instead when every column it
touches is kept in one of them and its only aggregate is ``count(*)``: that rewrite is
:mod:`workspace.analytics.rollup_rewrite`'s.
"""

from __future__ import annotations

import bisect
import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    ColumnElement,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Table,
    Uuid,
    func,
    literal_column,
    or_,
    select,
    text,
    type_coerce,
)

from workspace.core.models import TaskActivity
from workspace.core.models.projects import StateCategory
from workspace.extensions import db
from workspace.types import UTCDateTime

#: Dimensions kept per row: a condition or grouping over only these can be answered here.
KEPT = ("org_id", "project_id", "state_id", "state_category", "priority", "kind", "assignee_id")

NO_ID = "'00000000-0000-0000-0000-000000000000'"
COMPLETED = StateCategory.COMPLETED.value


def slot_column() -> Column:
    """The slot a writer added into (0 on SQLite and after the fold)."""
    return Column("slot", SmallInteger, nullable=False, server_default=text("0"))


def _bucket_keys() -> list[Column]:
    """The keys every state-bucket table starts with: org, project, state (and its
    category) and priority."""
    return [
        Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
        Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        Column("state_id", Uuid, ForeignKey("states.id", ondelete="CASCADE"), nullable=False),
        Column("state_category", String(16), nullable=False),
        Column("priority", String(16), nullable=False),
    ]


def _state_buckets(name: str, *extra: Column, unique: tuple[Any, ...]) -> Table:
    """A count table by org, project, state, category, priority and kind (plus
    ``extra``), with the sum of state-entry times; ``unique`` is the triggers' conflict
    target."""
    return Table(
        name,
        db.metadata,
        *_bucket_keys(),
        Column("kind", String(16), nullable=False),
        *extra,
        Column("n", Integer, nullable=False),
        Column("entered_ms", BigInteger, nullable=False),
        slot_column(),
        Index(f"ux_{name}_bucket", *unique, "slot", unique=True),
    )


#: ``task_counts`` without the assignee: a few hundred rows for an org of millions of
#: tasks, for every statement that neither groups nor filters by assignee.
TOTALS_KEPT = KEPT[:-1]

task_totals = _state_buckets("task_totals", unique=TOTALS_KEPT)
# The unassigned bucket is one value on both databases; the triggers' upserts name
# exactly these expressions as their conflict target.
task_counts = _state_buckets(
    "task_counts",
    Column("assignee_id", Uuid, ForeignKey("accounts.id", ondelete="CASCADE")),
    unique=(*TOTALS_KEPT, text(f"coalesce(assignee_id, {NO_ID})")),
)

#: ``task_counts`` without the kind (migration 0010): a quarter of its rows, for the
#: statements that group or filter by assignee but not by kind (pivot by assignee and
#: status, workload widgets, the custom chart by assignee with a priority filter).
ASSIGNEE_KEPT = ("org_id", "project_id", "state_id", "state_category", "priority", "assignee_id")

task_assignee_counts = Table(
    "task_assignee_counts",
    db.metadata,
    *_bucket_keys(),
    Column("assignee_id", Uuid, ForeignKey("accounts.id", ondelete="CASCADE")),
    Column("n", Integer, nullable=False),
    slot_column(),
    Index(
        "ux_task_assignee_counts_bucket",
        *ASSIGNEE_KEPT[:-1],
        text(f"coalesce(assignee_id, {NO_ID})"),
        "slot",
        unique=True,
    ),
)

#: The planning rollup: counts per project, category, cycle and module, for scatter and
#: anything else grouped or filtered by cycle or module.
PLAN_KEPT = ("org_id", "project_id", "state_category", "cycle_id", "module_id")

task_plan_counts = Table(
    "task_plan_counts",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("state_category", String(16), nullable=False),
    Column("cycle_id", Uuid, ForeignKey("cycles.id", ondelete="CASCADE")),
    Column("module_id", Uuid, ForeignKey("modules.id", ondelete="CASCADE")),
    Column("n", Integer, nullable=False),
    slot_column(),
    Index(
        "ux_task_plan_counts_bucket",
        "org_id",
        "project_id",
        "state_category",
        text(f"coalesce(cycle_id, {NO_ID})"),
        text(f"coalesce(module_id, {NO_ID})"),
        "slot",
        unique=True,
    ),
)

#: ``entered_ms`` counts from this moment (the triggers' EPOCH expression).
ENTERED_EPOCH = datetime(2020, 1, 1, tzinfo=UTC).timestamp()


def state_entry_averages(
    org_id: uuid.UUID, project_id: uuid.UUID | None, categories: list[str]
) -> dict[str, tuple[int, float]]:
    """Per category: how many tasks count there and their mean state-entry time (epoch
    seconds), from the rollup's sums: flow without reading a task."""
    n = func.sum(task_totals.c.n)
    query = (
        select(task_totals.c.state_category, n, func.sum(task_totals.c.entered_ms))
        .where(task_totals.c.org_id == org_id, task_totals.c.state_category.in_(categories))
        .group_by(task_totals.c.state_category)
    )
    if project_id is not None:
        query = query.where(task_totals.c.project_id == project_id)
    return {
        category: (int(count), ENTERED_EPOCH + int(total_ms) / int(count) / 1000)
        for category, count, total_ms in db.session.execute(query)
        if count
    }


task_due_counts = Table(
    "task_due_counts",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("due_date", Date, nullable=False),
    Column("n", Integer, nullable=False),
    slot_column(),
    Index("ux_task_due_counts_bucket", "org_id", "project_id", "due_date", "slot", unique=True),
)


def overdue(org_id: uuid.UUID, project_id: uuid.UUID | None, today: date) -> int:
    """Open tasks that count, due before ``today``: a range read of the due-date
    rollup (one row per project and due date) instead of a scan of the tasks."""
    query = select(func.coalesce(func.sum(task_due_counts.c.n), 0)).where(
        task_due_counts.c.org_id == org_id, task_due_counts.c.due_date < today
    )
    if project_id is not None:
        query = query.where(task_due_counts.c.project_id == project_id)
    return int(db.session.scalar(query) or 0)


task_done_counts = Table(
    "task_done_counts",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    Column("hour_start", UTCDateTime(), nullable=False),
    Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("n", Integer, nullable=False),
    slot_column(),
    Index("ux_task_done_counts_bucket", "org_id", "hour_start", "project_id", "slot", unique=True),
)


def completions(
    org_id: uuid.UUID, project_id: uuid.UUID | None, bounds: list[datetime]
) -> list[int]:
    """Completions of the tasks that count between each two consecutive ``bounds``
    (UTC, each on the hour): one range read of the hourly rollup (migration 0009),
    in index order, summed per hour; Python puts the hours (a few thousand at most)
    into their intervals, which a FILTER column per interval made SQLite compare
    for every row."""
    hour = task_done_counts.c.hour_start
    # The hours come back as stored, not as aware datetimes: a year of hours parsed
    # one by one took a third of the forecast's read on SQLite. SQLite's text (written
    # by the triggers with or without microseconds) compares by its first 13
    # characters, the hour; PostgreSQL's naive timestamps compare as they are.
    if db.session.get_bind().dialect.name == "sqlite":
        raw = type_coerce(hour, String())
        keys: list[Any] = [f"{b.astimezone(UTC):%Y-%m-%d %H}" for b in bounds]

        def key(at: Any) -> Any:
            return at[:13]
    else:
        raw = type_coerce(hour, DateTime())
        keys = [b.astimezone(UTC).replace(tzinfo=None) for b in bounds]

        def key(at: Any) -> Any:
            return at

    query = (
        select(raw, func.sum(task_done_counts.c.n))
        .where(task_done_counts.c.org_id == org_id, hour >= bounds[0], hour < bounds[-1])
        .group_by(hour)
    )
    if project_id is not None:
        query = query.where(task_done_counts.c.project_id == project_id)
    totals = [0] * (len(bounds) - 1)
    for at, n in db.session.execute(query):
        totals[bisect.bisect_right(keys, key(at)) - 1] += int(n)
    return totals


task_completed_days = Table(
    "task_completed_days",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    Column("completed_on", Date, nullable=False),
    Column("assignee_id", Uuid, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("n", Integer, nullable=False),
    slot_column(),
    Index(
        "ux_task_completed_days_bucket",
        "org_id",
        "completed_on",
        "assignee_id",
        "slot",
        unique=True,
    ),
)


def completed_by_assignee(org_id: uuid.UUID, first_day: date) -> dict[uuid.UUID, int]:
    """Completed tasks that count, per assignee, whose completion falls on ``first_day``
    (UTC) or later: a range read of the daily rollup (migration 0011), at most one row
    per assignee and day."""
    table = task_completed_days
    query = (
        select(table.c.assignee_id, func.sum(table.c.n))
        .where(table.c.org_id == org_id, table.c.completed_on >= first_day)
        .group_by(table.c.assignee_id)
    )
    return {assignee: int(n) for assignee, n in db.session.execute(query)}


def completion_rows() -> list[ColumnElement[bool]]:
    """History rows that complete a task: a status change into the completed category
    from any other. ``field`` is literal so it matches the partial index
    ``ix_task_activity_state_changes``."""
    return [
        TaskActivity.field == literal_column("'state'"),
        TaskActivity.new_category == COMPLETED,
        or_(TaskActivity.old_category.is_(None), TaskActivity.old_category != COMPLETED),
    ]
