"""The time series' maintained rollup (docs/analytics.md#time): tasks that count created,
and completed now, per org, project and UTC hour and UTC day (migration
``0023_time_counts``, kept by triggers on the tasks), and the read that folds it into
the buckets of the org's calendar.

A bucket is a span of whole local days, so its edges are local midnights: instants
anywhere in a UTC day, a whole hour in most zones, a quarter or half hour in a few
(Kolkata +5:30, Kathmandu +5:45). The read takes, for every UTC day of the range,
its day row when one bucket holds the whole day; else the day row for the bucket
holding most of its hours, and the hour rows of the other hours moved to theirs;
and where an edge cuts an hour, the tasks of the cut part from the tasks' own index
(as forecast does with ``task_done_counts``). So a year of weeks in UTC reads 365
day rows per project, and a DST zone's the same plus at most 12 hours per week.
"""

from __future__ import annotations

import uuid
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    DateTime,
    ForeignKey,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Uuid,
    cast,
    func,
    literal,
    literal_column,
    select,
    type_coerce,
    union_all,
)

from workspace.analytics.scope import Scope, counted_predicate, tune_for_analytics
from workspace.analytics.task_counts import slot_column
from workspace.core.models import StateCategory, Task
from workspace.extensions import db
from workspace.types import UTCDateTime

COMPLETED = StateCategory.COMPLETED.value
HOUR, DAY = timedelta(hours=1), timedelta(days=1)

task_time_counts = Table(
    "task_time_counts",
    db.metadata,
    Column("org_id", Uuid, ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False),
    #: "hour" or "day": the span that starts at ``starts_at``.
    Column("grain", String(4), nullable=False),
    Column("starts_at", UTCDateTime(), nullable=False),
    Column("project_id", Uuid, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    #: Tasks that count created in the span.
    Column("created", Integer, nullable=False),
    #: Tasks that count, completed now, whose completion time falls in the span.
    Column("completed", Integer, nullable=False),
    # PostgreSQL writers add into slots of their own (migration 0038): reads sum them.
    slot_column(),
    # The table itself on SQLite; on PostgreSQL it holds the counts, for index-only reads.
    PrimaryKeyConstraint(
        "org_id",
        "grain",
        "starts_at",
        "project_id",
        "slot",
        postgresql_include=["created", "completed"],
    ),
    sqlite_with_rowid=False,
)

#: What the rollup answers: the dimension and the metrics it keeps for it. Created
#: keeps no category, so only ``count``; every completed task is ``done``.
METRICS = {"created": ("count",), "completed": ("count", "done")}


def answers(dimension: str, metric: str, conditions: Any, split: str | None) -> bool:
    """Whether the rollup answers this series: no status, priority or PQL filter, a
    metric it keeps, and no split or a split by project."""
    return not conditions and metric in METRICS[dimension] and split in (None, "project")


def _start(column: Any, grain: str) -> Any:
    """The UTC hour or day of a timestamp, exactly as the triggers compute it."""
    if db.engine.dialect.name == "postgresql":
        return type_coerce(func.date_trunc(grain, column), UTCDateTime())
    cut, tail = (13, ":00:00.000000") if grain == "hour" else (10, " 00:00:00.000000")
    return type_coerce(
        func.substr(column, 1, cut).concat(literal_column(f"'{tail}'")), UTCDateTime()
    )


def _done() -> list[ColumnElement[bool]]:
    return [Task.state_category == COMPLETED, Task.completed_at.is_not(None)]


@dataclass(frozen=True)
class TimeCountsCheck:
    """``task_time_counts`` as a scan of the tasks that count computes it, for
    :mod:`workspace.analytics.consistency` (verify, repair, rebuild)."""

    table: Table = task_time_counts
    keys: tuple[str, ...] = ("org_id", "grain", "starts_at", "project_id")
    sums: tuple[str, ...] = ("completed",)
    values: tuple[str, ...] = ("created", "completed")

    def scan(self, org_id: uuid.UUID | None) -> Any:
        parts = []
        for column, created, where in (
            (Task.created_at, 1, []),
            (Task.completed_at, 0, _done()),
        ):
            for grain in ("hour", "day"):
                part = select(
                    Task.org_id.label("org_id"),
                    literal(grain, String()).label("grain"),
                    _start(column, grain).label("starts_at"),
                    Task.project_id.label("project_id"),
                    literal(created).label("created"),
                    literal(1 - created).label("completed"),
                ).where(counted_predicate(), *where)
                if org_id is not None:
                    part = part.where(Task.org_id == org_id)
                parts.append(part)
        rows = union_all(*parts).subquery()
        keys = [rows.c.org_id, rows.c.grain, rows.c.starts_at, rows.c.project_id]
        return select(
            *keys,
            func.sum(rows.c.created).label("created"),
            func.sum(rows.c.completed).label("completed"),
        ).group_by(*keys)


def _day(at: datetime) -> datetime:
    return datetime(at.year, at.month, at.day, tzinfo=UTC)


def _hour(at: datetime) -> datetime:
    return at.replace(minute=0, second=0, microsecond=0)


@dataclass
class _Plan:
    """Where each part of the range goes: ``days`` UTC day -> bucket; ``hours`` and
    ``parts`` (sub-hour spans read from the tasks) -> (bucket they are in, bucket
    their day or hour was put in, which gives them back)."""

    days: dict[datetime, int]
    hours: dict[datetime, tuple[int, int]]
    parts: list[tuple[datetime, datetime, int, int]]


def _plan(bounds: list[datetime]) -> _Plan:
    def bucket(at: datetime) -> int:
        return bisect_right(bounds, at) - 1  # -1 before the range, n after it

    plan = _Plan({}, {}, [])
    day = _day(bounds[0])
    while day < bounds[-1]:
        after = bisect_right(bounds, day)
        if after == len(bounds) or bounds[after] >= day + DAY:
            plan.days[day] = after - 1  # no edge inside the day: one bucket holds it
            day += DAY
            continue
        hours = [bucket(day + k * HOUR) for k in range(24)]
        # The bucket holding most of the day takes its row; the other hours move.
        base = Counter(hours).most_common(1)[0][0]
        plan.days[day] = base
        for k, b in enumerate(hours):
            if b != base:
                plan.hours[day + k * HOUR] = (b, base)
        day += DAY
    # An edge inside an hour (a quarter-hour zone's midnight): the rest of that hour
    # belongs to the edge's bucket, not to the hour's.
    for edge in bounds:
        hour = _hour(edge)
        if edge != hour:
            taken = plan.hours.get(hour, (bucket(hour), None))[0]
            cut = [b for b in bounds if edge < b < hour + HOUR]
            plan.parts.append((edge, cut[0] if cut else hour + HOUR, bucket(edge), taken))
    return plan


def counts(
    scope: Scope,
    dimension: str,
    bounds: list[datetime],
    by_project: bool,
    task_where: Callable[[Any], list[ColumnElement[bool]]],
) -> dict[Any, list[int]]:
    """The tasks created (completed) between each two consecutive ``bounds`` (aware
    UTC), keyed by project id when ``by_project``, else under the key None.
    ``task_where(at)`` gives the conditions of a scan of the tasks over column ``at``
    (the scope's and the dimension's), for the parts of an hour an edge cuts."""
    tune_for_analytics()
    n = len(bounds) - 1
    plan = _plan(bounds)
    out: dict[Any, list[int]] = {}

    def add(key: Any, b: int, value: int) -> None:
        if 0 <= b < n and value:
            out.setdefault(key, [0] * n)[b] += value

    t = task_time_counts
    value = t.c.created if dimension == "created" else t.c.completed
    sqlite = db.engine.dialect.name == "sqlite"
    # Rows come back raw (SQLite's text, PostgreSQL's naive timestamp; the project as
    # text) and are looked up in the plan by that: parsing thousands of timestamps and
    # ids cost more than the read.
    starts = type_coerce(t.c.starts_at, String() if sqlite else DateTime())
    project = cast(t.c.project_id, String()) if by_project else literal_column("NULL")
    base = [t.c.org_id == scope.org_id]
    if scope.project_id is not None:
        base.append(t.c.project_id == scope.project_id)

    def raw(at: datetime) -> Any:
        naive = at.astimezone(UTC).replace(tzinfo=None)
        return naive.strftime("%Y-%m-%d %H:%M:%S.%f") if sqlite else naive

    def read(grain: str, *where: Any) -> Any:
        where = (*base, t.c.grain == grain, *where)
        if by_project:  # a row per hour (day), project and slot: add() sums the slots
            return db.session.execute(select(starts, project, value).where(*where)).all()
        query = select(starts, project, func.sum(value)).where(*where).group_by(t.c.starts_at)
        return db.session.execute(query).all()

    days = sorted(plan.days)
    day_bucket = {raw(d): b for d, b in plan.days.items()}
    for start, key, total in read("day", t.c.starts_at >= days[0], t.c.starts_at <= days[-1]):
        add(key, day_bucket.get(start, -1), int(total))
    if plan.hours:
        hour_buckets = {raw(h): moves for h, moves in plan.hours.items()}
        for start, key, total in read("hour", t.c.starts_at.in_(sorted(plan.hours))):
            into, taken_from = hour_buckets[start]
            add(key, into, int(total))
            add(key, taken_from, -int(total))
    if plan.parts:
        _add_parts(plan, dimension, by_project, task_where, add)
    return {uuid.UUID(key) if key else None: values for key, values in out.items()}


def _add_parts(
    plan: _Plan,
    dimension: str,
    by_project: bool,
    task_where: Callable[[Any], list[ColumnElement[bool]]],
    add: Callable[[Any, int, int], None],
) -> None:
    """The parts of hours an edge cuts, from the tasks (each under an hour long)."""
    at = Task.created_at if dimension == "created" else Task.completed_at
    key = cast(Task.project_id, String()) if by_project else literal_column("NULL")
    # One range read of the tasks' index per part (a UNION ALL): an OR of the ranges
    # made SQLite read every task between the first and the last (1.9 s for a year).
    parts = [
        select(literal(i).label("part"), key.label("key"), func.count().label("n"))
        .where(*task_where(at), at >= lo, at < hi)
        .group_by(*([key] if by_project else []))
        for i, (lo, hi, _, _) in enumerate(plan.parts)
    ]
    for i, found, n in db.session.execute(union_all(*parts)):
        _, _, into, taken_from = plan.parts[i]
        add(found, into, int(n))
        add(found, taken_from, -int(n))
