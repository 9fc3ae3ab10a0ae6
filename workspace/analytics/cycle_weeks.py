"""Cycle time's histogram per week (migration 0028, docs/analytics.md#flow-over-time).

``task_cycle_weeks`` counts, per org, UTC week (Monday to Monday, numbered from the
week of 1970-01-01) and hour of cycle time, the completions ``task_cycle_times``
holds (``bucket`` -1: completed without a start). Triggers on ``task_cycle_times``
keep it. The percentiles of a range need only this histogram, to know which hours of
cycle time hold their ranks: the whole weeks of the range read it (a few thousand
rows), the days before the first and after the last whole week read the completions
themselves. Counting 90 days of the biggest org's completions (60,000) per hour of
cycle time sorted them all and took 28 of cycle time's 45 ms on SQLite.

A project's range reads its completions: the histogram keeps no project, as a
project's rows per week and hour would be about as many as its completions.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    PrimaryKeyConstraint,
    Table,
    Uuid,
    func,
    select,
    union_all,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from workspace.analytics.cycle_rollup import BUCKET_US, task_cycle_times
from workspace.analytics.scope import tune_for_analytics
from workspace.analytics.task_counts import slot_column
from workspace.extensions import db

#: The bucket of a completion that was never started.
NOT_STARTED = -1
_EPOCH = date(1970, 1, 1)

task_cycle_weeks = Table(
    "task_cycle_weeks",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    #: Weeks since the one holding 1970-01-01, each from a Monday 00:00 UTC.
    Column("week", Integer, nullable=False),
    #: Hours of cycle time (cycle_us // BUCKET_US), or NOT_STARTED.
    Column("bucket", Integer, nullable=False),
    Column("n", Integer, nullable=False),
    # PostgreSQL writers add into slots of their own (migration 0038): reads sum them.
    slot_column(),
    PrimaryKeyConstraint("org_id", "week", "bucket", "slot", postgresql_include=["n"]),
    sqlite_with_rowid=False,
)


def week_of(at: date) -> int:
    """The number of the UTC week ``at`` falls in (as the triggers compute it)."""
    return ((at - _EPOCH).days + 3) // 7


def week_start(week: int) -> datetime:
    """The Monday midnight, UTC, that starts ``week``."""
    return datetime.combine(_EPOCH + timedelta(days=7 * week - 3), time(), UTC)


class utc_week(FunctionElement):
    """The UTC week number of a naive-UTC timestamp, as the triggers compute it."""

    name = "utc_week"
    inherit_cache = True
    type = Integer()


@compiles(utc_week)
def _utc_week(element: utc_week, compiler: Any, **kw: Any) -> str:
    at = compiler.process(element.clauses, **kw)
    return f"(((CAST({at} AS DATE) - DATE '1970-01-01') + 3) / 7)"


@compiles(utc_week, "sqlite")
def _utc_week_sqlite(element: utc_week, compiler: Any, **kw: Any) -> str:
    at = compiler.process(element.clauses, **kw)
    return f"((CAST(julianday(substr({at}, 1, 10)) - 2440587.5 AS INTEGER) + 3) / 7)"


class _WeeksRollup:
    """What ``workspace.analytics.consistency`` compares and rebuilds: the histogram
    as a grouping of ``task_cycle_times`` (rebuilt after it)."""

    table = task_cycle_weeks
    keys = ("org_id", "week", "bucket")
    sums: tuple[str, ...] = ()

    def scan(self, org_id: uuid.UUID | None) -> Any:
        t = task_cycle_times
        week = utc_week(t.c.completed_at).label("week")
        bucket = func.coalesce(t.c.cycle_us // BUCKET_US, NOT_STARTED).label("bucket")
        query = select(t.c.org_id, week, bucket, func.count().label("n")).group_by(
            t.c.org_id, week, bucket
        )
        return query.where(t.c.org_id == org_id) if org_id is not None else query


ROLLUPS = (_WeeksRollup(),)


def histogram(
    org_id: uuid.UUID, project_id: uuid.UUID | None, lo: datetime, hi: datetime
) -> list[tuple[int | None, int]]:
    """(hour of cycle time or None for not started, completions) of the completions in
    [lo, hi): the whole UTC weeks from the histogram, the rest from the completions."""
    tune_for_analytics()  # PostgreSQL: no JIT, no parallel or sequential scan of all orgs
    t = task_cycle_times
    bucket = (t.c.cycle_us // BUCKET_US).label("b")

    def completions(start: datetime, end: datetime) -> Any:
        where = [t.c.org_id == org_id, t.c.completed_at >= start, t.c.completed_at < end]
        if project_id is not None:
            where.append(t.c.project_id == project_id)
        return select(bucket, func.count().label("n")).where(*where).group_by(bucket)

    # The whole weeks: from the first starting at or after lo to the last ending by hi.
    first = week_of(lo.astimezone(UTC).date())
    if week_start(first) < lo:
        first += 1
    last = week_of(hi.astimezone(UTC).date()) - 1
    if project_id is not None or first > last:
        parts = [completions(lo, hi)]
    else:
        w = task_cycle_weeks
        whole = (
            select(w.c.bucket.label("b"), func.sum(w.c.n).label("n"))
            .where(w.c.org_id == org_id, w.c.week >= first, w.c.week <= last)
            .group_by(w.c.bucket)
            .having(func.sum(w.c.n) != 0)  # a bucket whose slots cancel out
        )
        parts = [whole, completions(lo, week_start(first)), completions(week_start(last + 1), hi)]
    counts: dict[int | None, int] = {}
    for b, n in db.session.execute(union_all(*parts)):
        key = None if b is None or b == NOT_STARTED else b
        counts[key] = counts.get(key, 0) + n
    return list(counts.items())
