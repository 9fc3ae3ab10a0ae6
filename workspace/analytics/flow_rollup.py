"""The cumulative flow's maintained rollup (migration 0021, docs/analytics.md#flow-over-time).

``task_flow_hours`` and ``task_flow_days`` hold, per org, UTC hour (or day), project and
status category, the sum of the moves of the tasks that count today: +1 into the
category a task was created in at its creation, -1 / +1 out of the old and into the new
category at each state change. Triggers keep both (see the migration); this module
states what a scan of the history would put there (for ``flask analytics verify`` and
the bench loader's rebuild) and reads the levels at a list of moments.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Table,
    Uuid,
    and_,
    case,
    func,
    literal_column,
    select,
    text,
    union_all,
)

from workspace.analytics.scope import counted_predicate, epoch_slot, tune_for_analytics
from workspace.core.models import Task, TaskActivity
from workspace.extensions import db


def _table(name: str, unit: str) -> Table:
    return Table(
        name,
        db.metadata,
        Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
        Column(unit, BigInteger, nullable=False),
        Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        Column("category", String(16), nullable=False),
        Column("n", Integer, nullable=False),
        # Each PostgreSQL writer adds into a slot of its own (migration 0036): readers
        # sum a bucket's slots.
        Column("slot", SmallInteger, nullable=False, server_default=text("0")),
        Index(f"ux_{name}_bucket", "org_id", unit, "project_id", "category", "slot", unique=True),
        # SQLite's triggers delete a row that falls to zero through this index. On
        # PostgreSQL the fold does (migration 0037): an index naming ``n`` would
        # make every update of a count a non-HOT update.
        Index(f"ix_{name}_zero", "org_id", sqlite_where=text("n = 0")).ddl_if(dialect="sqlite"),
    )


task_flow_hours = _table("task_flow_hours", "hour")
task_flow_days = _table("task_flow_days", "day")

HOUR_SECONDS = 3600


def epoch_hour(at: Any) -> epoch_slot:
    """Hours since 1970 of a naive-UTC timestamp, exactly as the triggers compute it."""
    return epoch_slot(at, HOUR_SECONDS)


def _moves(org_id: uuid.UUID | None) -> Any:
    """Every move of a task that counts (org_id, project_id, hour, category, delta),
    written independently of the triggers: the first state change by a window."""
    tasks = Task.__table__
    counted = [counted_predicate()]
    if org_id is not None:
        counted.append(tasks.c.org_id == org_id)
    history = (
        select(
            TaskActivity.task_id,
            TaskActivity.old_category,
            TaskActivity.new_category,
            TaskActivity.created_at,
            func.row_number()
            .over(
                partition_by=TaskActivity.task_id,
                order_by=(TaskActivity.created_at, TaskActivity.id),
            )
            .label("k"),
        )
        .join(tasks, tasks.c.id == TaskActivity.task_id)
        .where(TaskActivity.field == "state", *counted)
        .cte("flow_history")
    )
    own = (tasks.c.org_id, tasks.c.project_id)
    created = (
        select(
            *own,
            epoch_hour(tasks.c.created_at).label("hour"),
            func.coalesce(history.c.old_category, tasks.c.state_category).label("category"),
            literal_column("1").label("delta"),
        )
        .select_from(tasks)
        .outerjoin(history, and_(history.c.task_id == tasks.c.id, history.c.k == 1))
        .where(*counted)
    )
    changed = [
        select(*own, epoch_hour(history.c.created_at), category, literal_column(delta))
        .select_from(history)
        .join(tasks, tasks.c.id == history.c.task_id)
        for category, delta in ((history.c.old_category, "-1"), (history.c.new_category, "1"))
    ]
    return union_all(created, *changed).subquery("flow_moves")


class _FlowRollup:
    """A rollup ``workspace.analytics.consistency`` compares and rebuilds: its table,
    keys and the scan that says what the table must hold (rows summing to zero left
    out, as the triggers delete them)."""

    sums: tuple[str, ...] = ()

    def __init__(self, table: Table, unit: str) -> None:
        self.table, self.unit = table, unit
        self.keys = ("org_id", unit, "project_id", "category")

    def scan(self, org_id: uuid.UUID | None) -> Any:
        moves = _moves(org_id)
        bucket = moves.c.hour if self.unit == "hour" else moves.c.hour // 24
        columns = (moves.c.org_id, bucket.label(self.unit), moves.c.project_id, moves.c.category)
        total = func.sum(moves.c.delta)
        return (
            select(*columns, total.label("n"))
            .where(moves.c.category.is_not(None))
            .group_by(*columns)
            .having(total != 0)
        )


ROLLUPS = (_FlowRollup(task_flow_hours, "hour"), _FlowRollup(task_flow_days, "day"))


def _hour_of(moment: datetime) -> int:
    return int(moment.astimezone(UTC).timestamp()) // HOUR_SECONDS


def whole_hours(moments: Sequence[datetime]) -> bool:
    """Whether every moment is a UTC hour boundary: what the hourly rows can split at."""
    return all(int(m.timestamp()) % HOUR_SECONDS == 0 for m in moments)


def levels(
    org_id: uuid.UUID, project_id: uuid.UUID | None, moments: Sequence[datetime]
) -> list[dict[str, int]]:
    """Per moment (each a UTC hour boundary, ascending), the sum of every move before
    it per category. A level is the days before the moment's UTC day plus the hours of
    that day before it, or the days up to that day minus its hours from the moment on,
    whichever reads fewer hours: at most 12 hour buckets per moment."""
    tune_for_analytics()  # PostgreSQL: no JIT, no parallel or sequential scan of all orgs
    hours = [_hour_of(m) for m in moments]
    plans = []  # (day whose prefix is summed (exclusive), hours added, hours taken away)
    wanted: set[int] = set()
    for hour in hours:
        day, into = divmod(hour, 24)
        if into <= 12:
            added = range(day * 24, hour)
            plans.append((day, added, range(0)))
            wanted.update(added)
        else:
            taken = range(hour, day * 24 + 24)
            plans.append((day + 1, range(0), taken))
            wanted.update(taken)
    days_t, hours_t = task_flow_days, task_flow_hours
    last_day = max(p[0] for p in plans)
    first_day = min(p[0] for p in plans)
    where = [days_t.c.org_id == org_id, days_t.c.day < last_day]
    if project_id is not None:
        where.append(days_t.c.project_id == project_id)
    # Everything before the first moment's day in one sum per category, then per day.
    day_key = case((days_t.c.day < first_day, -1), else_=days_t.c.day)
    day_rows = db.session.execute(
        select(day_key, days_t.c.category, func.sum(days_t.c.n))
        .where(*where)
        .group_by(day_key, days_t.c.category)
    ).all()
    per_day: dict[int, dict[str, int]] = {}
    for d, category, n in day_rows:
        per_day.setdefault(int(d), {}).setdefault(category, 0)
        per_day[int(d)][category] += int(n)
    per_hour: dict[int, dict[str, int]] = {}
    if wanted:
        where_h = [hours_t.c.org_id == org_id, hours_t.c.hour.in_(sorted(wanted))]
        if project_id is not None:
            where_h.append(hours_t.c.project_id == project_id)
        for h, category, n in db.session.execute(
            select(hours_t.c.hour, hours_t.c.category, func.sum(hours_t.c.n))
            .where(*where_h)
            .group_by(hours_t.c.hour, hours_t.c.category)
        ):
            per_hour.setdefault(int(h), {})[category] = int(n)
    # Running sum of the days: prefix[d] = everything before day d.
    running: dict[str, int] = dict(per_day.get(-1, {}))
    prefix: dict[int, dict[str, int]] = {}
    for d in range(first_day, last_day + 1):
        prefix[d] = dict(running)
        for category, n in per_day.get(d, {}).items():
            running[category] = running.get(category, 0) + n
    result = []
    for day, added, taken in plans:
        level = dict(prefix[day])
        for h in added:
            for category, n in per_hour.get(h, {}).items():
                level[category] = level.get(category, 0) + n
        for h in taken:
            for category, n in per_hour.get(h, {}).items():
                level[category] = level.get(category, 0) - n
        result.append(level)
    return result
