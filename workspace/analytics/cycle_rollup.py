"""Cycle time's maintained table (migration 0021, docs/analytics.md#flow-over-time).

``task_cycle_times`` holds one row per completed task that counts: its completion time,
its first start (``None`` when it was never started) and the microseconds between them.
Triggers recompute a task's row from its own history whenever it could change; this
module states what a scan would put there (for ``flask analytics verify`` and the
bench loader's rebuild) and reads a range of completions: a count, a few order
statistics and the slowest points, never every task of the range.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Table,
    Uuid,
    and_,
    case,
    func,
    or_,
    select,
    type_coerce,
    union_all,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from workspace.analytics.scope import counted_predicate
from workspace.core.models import Project, Task, TaskActivity
from workspace.extensions import db
from workspace.types import UTCDateTime

STARTED, COMPLETED = "started", "completed"

task_cycle_times = Table(
    "task_cycle_times",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    Column("task_id", Uuid, ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True),
    Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("completed_at", UTCDateTime(), nullable=False),
    Column("started_at", UTCDateTime(), nullable=True),
    Column("cycle_us", BigInteger, nullable=True),
    Index("ix_task_cycle_times_completed", "org_id", "completed_at", "project_id", "cycle_us"),
    # A band of cycle times (the ranks of a percentile, the slowest points): migration 0027.
    Index("ix_task_cycle_times_cycle", "org_id", "cycle_us", "completed_at", "project_id"),
)


class epoch_us(FunctionElement):
    """Microseconds since 1970 of a naive-UTC timestamp, exactly as the triggers
    compute it."""

    name = "epoch_us"
    inherit_cache = True
    type = BigInteger()


@compiles(epoch_us)
def _epoch_us(element: epoch_us, compiler: Any, **kw: Any) -> str:
    at = compiler.process(element.clauses, **kw)
    return f"CAST(round(extract(epoch FROM {at}) * 1000000) AS BIGINT)"


@compiles(epoch_us, "sqlite")
def _epoch_us_sqlite(element: epoch_us, compiler: Any, **kw: Any) -> str:
    at = compiler.process(element.clauses, **kw)
    return (
        f"(CAST(strftime('%s', {at}) AS INTEGER) * 1000000 "
        f"+ CAST(substr({at} || '.000000', 21, 6) AS INTEGER))"
    )


class unindexed(FunctionElement):
    """A column no index may serve (SQLite's unary ``+``, documented for this): the
    slowest points' read, ordered by completion, else walks the completion-led index
    over the whole range instead of the narrow band of the cycle-led one."""

    name = "unindexed"
    inherit_cache = True

    def __init__(self, column: Any) -> None:
        super().__init__(column)
        self.type = column.type


@compiles(unindexed)
def _unindexed(element: unindexed, compiler: Any, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(unindexed, "sqlite")
def _unindexed_sqlite(element: unindexed, compiler: Any, **kw: Any) -> str:
    return "+" + compiler.process(element.clauses, **kw)


class _CycleRollup:
    """What ``workspace.analytics.consistency`` compares and rebuilds: one row per
    kept task, its values compared as they are (no count to sum)."""

    table = task_cycle_times
    keys = ("org_id", "task_id")
    sums: tuple[str, ...] = ()
    values = ("project_id", "completed_at", "started_at", "cycle_us")

    def scan(self, org_id: uuid.UUID | None) -> Any:
        # A grouped join of the history, as flow_time's own scan reads it.
        tasks = Task.__table__
        into = func.min(
            case(
                (
                    and_(
                        TaskActivity.new_category == STARTED,
                        or_(
                            TaskActivity.old_category.is_(None),
                            TaskActivity.old_category != STARTED,
                        ),
                    ),
                    TaskActivity.created_at,
                )
            )
        )
        out_of = func.min(case((TaskActivity.old_category == STARTED, TaskActivity.created_at)))
        first = (
            select(
                tasks.c.org_id,
                tasks.c.id.label("task_id"),
                tasks.c.project_id,
                tasks.c.completed_at,
                case(
                    (
                        and_(out_of.is_not(None), or_(into.is_(None), out_of < into)),
                        tasks.c.created_at,
                    ),
                    else_=into,
                ).label("started_at"),
            )
            .select_from(tasks)
            .outerjoin(
                TaskActivity,
                and_(
                    TaskActivity.task_id == tasks.c.id,
                    TaskActivity.field == "state",
                    TaskActivity.created_at <= tasks.c.completed_at,
                ),
            )
            .where(
                counted_predicate(),
                tasks.c.state_category == COMPLETED,
                tasks.c.completed_at.is_not(None),
            )
            .group_by(
                tasks.c.org_id,
                tasks.c.id,
                tasks.c.project_id,
                tasks.c.completed_at,
                tasks.c.created_at,
            )
        )
        if org_id is not None:
            first = first.where(tasks.c.org_id == org_id)
        s = first.subquery("cycle_scan")
        return select(
            s.c.org_id,
            s.c.task_id,
            s.c.project_id,
            s.c.completed_at,
            type_coerce(s.c.started_at, UTCDateTime()).label("started_at"),
            (epoch_us(s.c.completed_at) - epoch_us(s.c.started_at)).label("cycle_us"),
        )


ROLLUPS = (_CycleRollup(),)


def _in_range(
    org_id: uuid.UUID,
    project_id: uuid.UUID | None,
    lo: datetime,
    hi: datetime,
    by_completion: bool = True,
):
    t = task_cycle_times
    at = t.c.completed_at if by_completion else unindexed(t.c.completed_at)
    where = [t.c.org_id == org_id, at >= lo, at < hi]
    if project_id is not None:
        where.append(t.c.project_id == project_id)
    return where


#: Microseconds per histogram bucket (an hour): a few hundred buckets for any range.
BUCKET_US = 3_600_000_000


def ranked(
    org_id: uuid.UUID,
    project_id: uuid.UUID | None,
    lo: datetime,
    hi: datetime,
    counts: list[tuple[int | None, int]],
    ranks_of: Callable[[int], set[int]],
) -> tuple[int, int, dict[int, int], int]:
    """(completions in [lo, hi), of which started, the started ones' cycle times in
    microseconds at the 0-based ranks of the ascending order that ``ranks_of(started)``
    names, a bound above the longest of them), from ``counts``: the range's
    completions per hour of cycle time (None: not started; cycle_weeks.histogram).

    The histogram says which hours hold the ranks; one read fetches the cycle times of
    those hours only, each hour a band of the cycle-led index. Fetching the range's
    60,000 numbers to sort them here took 170 ms."""
    t = task_cycle_times
    bucket = (t.c.cycle_us // BUCKET_US).label("b")
    in_range = _in_range(org_id, project_id, lo, hi)
    total = sum(n for _, n in counts)
    buckets = sorted((b, n) for b, n in counts if b is not None)
    started = sum(n for _, n in buckets)
    ranks = ranks_of(started)
    wanted: dict[int, list[int]] = {}  # bucket -> the ranks in it
    first = 0
    for b, n in buckets:
        for r in ranks:
            if first <= r < first + n:
                wanted.setdefault(b, []).append(r)
        first += n
    below = (buckets[-1][0] + 1) * BUCKET_US if buckets else 0
    if not wanted:
        return total, started, {}, below
    bands = [
        select(bucket, t.c.cycle_us).where(
            *in_range, t.c.cycle_us >= b * BUCKET_US, t.c.cycle_us < (b + 1) * BUCKET_US
        )
        for b in sorted(wanted)
    ]
    values = sorted(db.session.execute(union_all(*bands)).all())
    starts, first = {}, 0
    for b, n in buckets:
        starts[b] = first
        first += n
    by_bucket: dict[int, list[int]] = {}
    for b, us in values:
        by_bucket.setdefault(b, []).append(us)
    return (
        total,
        started,
        {r: by_bucket[b][r - starts[b]] for b, rs in wanted.items() for r in rs},
        below,
    )


def slowest(
    org_id: uuid.UUID,
    project_id: uuid.UUID | None,
    lo: datetime,
    hi: datetime,
    at_least: int,
    below: int,
) -> list[Any]:
    """The started tasks completed in [lo, hi) whose cycle time is at least
    ``at_least`` microseconds and below ``below`` (past the range's longest), in
    completion order, with what a point shows: a band of the cycle-led index."""
    t = task_cycle_times
    query = (
        select(
            Task.id,
            Project.identifier,
            Task.sequence,
            Task.title,
            t.c.started_at,
            t.c.completed_at,
            t.c.cycle_us,
        )
        .select_from(t)
        .join(Task, Task.id == t.c.task_id)
        .join(Project, Project.id == Task.project_id)
        .where(
            *_in_range(org_id, project_id, lo, hi, by_completion=False),
            t.c.cycle_us >= at_least,
            t.c.cycle_us < below,
        )
        .order_by(t.c.completed_at, Project.identifier, Task.sequence)
    )
    return db.session.execute(query).all()
