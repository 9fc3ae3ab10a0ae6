"""Flow over time: cycle time per completed task and the cumulative flow diagram
(docs/analytics.md#flow-over-time).

Both read the status history (``task_activity`` rows with ``field = 'state'``, which
carry the old and new category) of the tasks that count today, in the scope, under
extra conditions (a compiled PQL filter: workspace/analytics/reports/flow_service.py).
Counting happens in SQL: cycle time fetches one row per completed task in the range
(the scatter draws every one of them anyway), the flow diagram one row per quarter
hour and category that saw a move.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    and_,
    case,
    func,
    literal_column,
    or_,
    select,
    union_all,
)

from workspace.analytics import cycle_rollup, cycle_weeks, flow_rollup
from workspace.analytics.scope import Scope, epoch_slot
from workspace.core.models import Project, Task, TaskActivity
from workspace.errors import ServiceError
from workspace.extensions import db

#: The bands of the flow diagram, bottom to top (triage is intake, not work: a task
#: is in no band while it sits there).
CFD_CATEGORIES = ("completed", "cancelled", "started", "unstarted", "backlog")
STARTED = "started"
PERCENTILES = (50, 85, 95)
#: Points a cycle-time answer carries at most (the slowest, in completion order): the
#: percentiles and counts are over every completed task, the scatter stays readable and
#: the response small at any pace (docs/analytics.md#flow-over-time).
POINT_CAP = 500
#: Days a range may span: the flow diagram draws a column per day.
MAX_DAYS = 366
DEFAULT_DAYS = 90
#: Days any analytics range may name (time series and flow alike): a day's midnight in
#: any zone must be a UTC moment Python and both databases hold, a bucket must be able
#: to step a quarter either way, and PQL dates stop at 9000 (docs/pql.md).
EARLIEST, LATEST = date(1970, 1, 2), date(9000, 12, 31)


def check_days(**days: date | None) -> None:
    """A ServiceError on the first named day outside :data:`EARLIEST`..:data:`LATEST`."""
    for name, day in days.items():
        if day is not None and not EARLIEST <= day <= LATEST:
            raise ServiceError(
                f"'{name}' must be between {EARLIEST.isoformat()} and {LATEST.isoformat()}.",
                field=name,
            )


def date_range(scope: Scope, start: date | None, end: date | None) -> tuple[date, date]:
    """The inclusive range of days (org time zone); by default the 90 days ending today."""
    end = end or scope.today
    check_days(**{"from": start, "to": end})
    start = start or max(EARLIEST, end - timedelta(days=DEFAULT_DAYS - 1))
    if start > end:
        raise ServiceError("The range's start must be on or before its end.", field="from")
    if (end - start).days + 1 > MAX_DAYS:
        raise ServiceError(f"A range spans at most {MAX_DAYS} days.", field="from")
    return start, end


def _conditions(scope: Scope, extra: Sequence[ColumnElement[bool]]) -> list[Any]:
    return [*scope.where(), *extra]


def percentile(ordered: list[float], p: float) -> float:
    """PostgreSQL's ``percentile_cont``: linear interpolation between the two closest
    ranks of the ascending values."""
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * p / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def cycle_time(
    scope: Scope,
    *,
    start: date | None = None,
    end: date | None = None,
    where: Sequence[ColumnElement[bool]] = (),
) -> dict[str, Any]:
    """Per task completed (now) within the range: days from its first start to its
    completion, with the 50th/85th/95th percentiles over them.

    First start is the first change into a ``started`` state, or the task's creation
    when it was created in one (its first change out of started comes before any
    change into it). A completed task that was never started is left out and counted
    in ``completed_without_start``.
    """
    first_day, last_day = date_range(scope, start, end)
    lo, hi = scope.day_start(first_day), scope.day_start(last_day + timedelta(days=1))
    if not where:
        return _cycle_time_kept(scope, first_day, last_day, lo, hi)
    points, without_start = [], 0
    for row in db.session.execute(_cycle_scan(scope, where, lo, hi)):
        created_in_started = row.out_of is not None and (row.into is None or row.out_of < row.into)
        started = row.created_at if created_in_started else row.into
        if started is None:
            without_start += 1
            continue
        days = (row.completed_at - started).total_seconds() / 86400
        points.append(_point(scope, row, started, row.completed_at, round(days, 2)))
    ordered = sorted(p["days"] for p in points)
    shown = points
    if len(points) > POINT_CAP:
        slow = sorted(range(len(points)), key=lambda i: -points[i]["days"])[:POINT_CAP]
        shown = [points[i] for i in sorted(slow)]
    return {
        "start": first_day,
        "end": last_day,
        "points": shown,
        "point_count": len(points),
        "truncated": len(shown) < len(points),
        "percentiles": [{"p": p, "days": round(percentile(ordered, p), 2)} for p in PERCENTILES],
        "completed_without_start": without_start,
    }


def _point(scope: Scope, row: Any, started: datetime, completed: datetime, days: float) -> dict:
    key = f"{row.identifier}-{row.sequence}"
    return {
        "task_id": row.id,
        "key": key,
        "title": row.title,
        "started_at": started,
        "completed_at": completed,
        "days": days,
        "href": f"/o/{scope.org.slug}/tasks/{key}",
    }


def _days(micros: int) -> float:
    """Days, 2 decimals, exactly as ``timedelta.total_seconds() / 86400`` rounds them."""
    return round(micros / 10**6 / 86400, 2)


def _around(x: float) -> tuple[int, int]:
    return math.floor(x), math.ceil(x)


def _cycle_time_kept(
    scope: Scope, first_day: date, last_day: date, lo: datetime, hi: datetime
) -> dict[str, Any]:
    """Cycle time from ``task_cycle_times`` (migration 0021): the cycle times at the
    ranks the percentiles interpolate between (and where the slowest points start),
    then at most :data:`POINT_CAP` points (the slowest) with their tasks. Rounding is
    monotone, so the k-th rounded value is the k-th value rounded: the percentiles
    equal those over every point."""
    org_id, project_id = scope.org_id, scope.project_id

    def ranks_of(started: int) -> set[int]:
        at = {r for p in PERCENTILES for r in _around((started - 1) * p / 100)}
        return at | {started - min(POINT_CAP, started)} if started else set()

    counts = cycle_weeks.histogram(org_id, project_id, lo, hi)
    total, started, at, below = cycle_rollup.ranked(org_id, project_id, lo, hi, counts, ranks_of)
    positions = {p: (started - 1) * p / 100 for p in PERCENTILES}
    percentiles = []
    for p, x in positions.items():
        if not started:
            percentiles.append({"p": p, "days": 0.0})
            continue
        low, high = _days(at[math.floor(x)]), _days(at[math.ceil(x)])
        percentiles.append({"p": p, "days": round(low + (high - low) * (x - math.floor(x)), 2)})
    rows = []
    if started:
        # The slowest POINT_CAP: everything from the cap-th largest up; ties at that
        # value are cut by task id, as an ORDER BY cycle time, id would.
        floor_us = at[started - min(POINT_CAP, started)]
        rows = cycle_rollup.slowest(org_id, project_id, lo, hi, floor_us, below)
        if len(rows) > POINT_CAP:
            kept = sorted(rows, key=lambda r: (-r.cycle_us, str(r.id)))[:POINT_CAP]
            keep = {r.id for r in kept}
            rows = [r for r in rows if r.id in keep]
    points = [_point(scope, r, r.started_at, r.completed_at, _days(r.cycle_us)) for r in rows]
    return {
        "start": first_day,
        "end": last_day,
        "points": points,
        "point_count": started,
        "truncated": len(points) < started,
        "percentiles": percentiles,
        "completed_without_start": total - started,
    }


def _cycle_scan(
    scope: Scope, where: Sequence[ColumnElement[bool]], lo: datetime, hi: datetime
) -> Any:
    """Per completed task in [lo, hi) under the extra conditions: its first change into
    and out of ``started`` up to its completion (a PQL filter cannot be answered from
    the kept table, so this reads the history)."""
    into = func.min(
        case(
            (
                and_(
                    TaskActivity.new_category == STARTED,
                    or_(TaskActivity.old_category.is_(None), TaskActivity.old_category != STARTED),
                ),
                TaskActivity.created_at,
            )
        )
    )
    out_of = func.min(case((TaskActivity.old_category == STARTED, TaskActivity.created_at)))
    query = (
        select(
            Task.id,
            Project.identifier,
            Task.sequence,
            Task.title,
            Task.created_at,
            Task.completed_at,
            into.label("into"),
            out_of.label("out_of"),
        )
        .join(Project, Project.id == Task.project_id)
        .outerjoin(
            TaskActivity,
            and_(
                TaskActivity.task_id == Task.id,
                TaskActivity.field == "state",
                TaskActivity.created_at <= Task.completed_at,
            ),
        )
        .where(
            *_conditions(scope, where),
            Task.state_category == "completed",
            Task.completed_at >= lo,
            Task.completed_at < hi,
        )
        .group_by(
            Task.id,
            Project.identifier,
            Task.sequence,
            Task.title,
            Task.created_at,
            Task.completed_at,
        )
        .order_by(Task.completed_at, Project.identifier, Task.sequence)
    )
    return query


def quarter_hour(at: Any) -> epoch_slot:
    """The UTC quarter hour ``at`` falls in (seconds since 1970 / 900): each lies
    inside a single local day of any zone."""
    return epoch_slot(at, 900)


def _events(org_id: uuid.UUID, conditions: list[ColumnElement[bool]]):
    """Every move of a counted task into (+1) or out of (-1) a category, with when.

    A task's creation puts it into the category its first state change left, else
    into the one it is in now; each state change moves it from old to new."""
    first = (
        select(
            TaskActivity.task_id,
            TaskActivity.old_category,
            func.row_number()
            .over(
                partition_by=TaskActivity.task_id,
                order_by=(TaskActivity.created_at, TaskActivity.id),
            )
            .label("n"),
        )
        .join(Task, Task.id == TaskActivity.task_id)
        .where(TaskActivity.org_id == org_id, TaskActivity.field == "state", *conditions)
        .subquery("first_change")
    )
    created = (
        select(
            func.coalesce(first.c.old_category, Task.state_category).label("category"),
            Task.created_at.label("at"),
            literal_column("1").label("delta"),
        )
        .select_from(Task)
        .outerjoin(first, and_(first.c.task_id == Task.id, first.c.n == 1))
        .where(*conditions)
    )
    changes = (
        select(
            TaskActivity.task_id,
            TaskActivity.old_category,
            TaskActivity.new_category,
            TaskActivity.created_at,
        )
        .join(Task, Task.id == TaskActivity.task_id)
        .where(TaskActivity.org_id == org_id, TaskActivity.field == "state", *conditions)
        .cte("changes")
    )
    left = select(changes.c.old_category, changes.c.created_at, literal_column("-1"))
    entered = select(changes.c.new_category, changes.c.created_at, literal_column("1"))
    return union_all(created, left, entered).subquery("events")


def cumulative_flow(
    scope: Scope,
    *,
    start: date | None = None,
    end: date | None = None,
    where: Sequence[ColumnElement[bool]] = (),
) -> dict[str, Any]:
    """Tasks per status category at the end of each day of the range (org time
    zone), for the tasks that count today.

    SQL sums the moves before the range per category, and the moves within it per
    UTC quarter hour and category (at most 96 a day); the quarter hours are put in
    their local day and each day's figure is the running sum (a few thousand numbers
    added up here, never a task replayed)."""
    first_day, last_day = date_range(scope, start, end)
    days = (last_day - first_day).days + 1
    ends = [scope.day_start(first_day + timedelta(days=i + 1)) for i in range(days)]
    if not where and flow_rollup.whole_hours(ends):
        # The maintained rollup (migration 0021) answers every zone whose midnights are
        # UTC hour boundaries; a PQL filter or a quarter-hour zone reads the history.
        at_ends = flow_rollup.levels(scope.org_id, scope.project_id, ends)
        series = [
            {"day": first_day + timedelta(days=i), **{c: at.get(c, 0) for c in CFD_CATEGORIES}}
            for i, at in enumerate(at_ends)
        ]
        return {
            "start": first_day,
            "end": last_day,
            "categories": list(CFD_CATEGORIES),
            "days": series,
        }
    lo, hi = scope.day_start(first_day), ends[-1]
    events = _events(scope.org_id, _conditions(scope, where))
    before = (
        select(events.c.category, func.sum(events.c.delta))
        .where(events.c.at < lo)
        .group_by(events.c.category)
    )
    level = dict.fromkeys(CFD_CATEGORIES, 0)
    for category, total in db.session.execute(before):
        if category in level:
            level[category] = int(total or 0)
    quarter = quarter_hour(events.c.at).label("quarter")
    within = (
        select(quarter, events.c.category, func.sum(events.c.delta))
        .where(events.c.at >= lo, events.c.at < hi)
        .group_by(quarter, events.c.category)
    )
    moves: dict[tuple[date, str], int] = {}
    for q, category, total in db.session.execute(within):
        day = datetime.fromtimestamp(int(q) * 900, UTC).astimezone(scope.tz).date()
        moves[(day, category)] = moves.get((day, category), 0) + int(total or 0)
    series = []
    for i in range(days):
        day = first_day + timedelta(days=i)
        for category in CFD_CATEGORIES:
            level[category] += moves.get((day, category), 0)
        series.append({"day": day, **level})
    return {"start": first_day, "end": last_day, "categories": list(CFD_CATEGORIES), "days": series}
