"""Time as a dimension (docs/analytics.md#time): tasks created or completed per day,
week, month or quarter in the org's time zone, every bucket of the range present.

Buckets are whole days of the org's zone, so each one's edges are two instants that
:meth:`Scope.day_start` turns into UTC, across DST changes and half-hour offsets
alike. One statement counts every bucket (``count(*) FILTER (WHERE at >= lo AND at
< hi)`` per bucket) over a range read of the tasks; Python only lays out the dates.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import date, timedelta
from typing import Any
from urllib.parse import quote_plus

from sqlalchemy import ColumnElement, and_, func, literal_column, select

from workspace.analytics import dimensions, drill, time_rollup
from workspace.analytics.flow_time import check_days, quarter_hour
from workspace.analytics.scope import Scope, metric_condition, tune_for_analytics
from workspace.core.models import Org, State, StateCategory, Task
from workspace.core.orgs import WEEKDAYS
from workspace.errors import ServiceError
from workspace.extensions import db

#: The most buckets one series may have: a year and a day of days.
MAX_BUCKETS = 366
COMPLETED = StateCategory.COMPLETED.value
_PQL_FIELD = {"created": "createdAt", "completed": "completedAt"}


def _column(dimension: str) -> Any:
    return Task.created_at if dimension == "created" else Task.completed_at


def week_start_day(org: Org) -> int:
    """The weekday the org's weeks start on, as ``date.weekday()`` numbers it (0 is
    Monday, the default; 6 Sunday): the one place that reads the setting."""
    try:
        return WEEKDAYS.index(org.week_start or "monday")
    except ValueError:
        return 0


def bucket_start(day: date, interval: str, week_start: int = 0) -> date:
    """The first day of ``day``'s bucket; weeks start on weekday ``week_start``
    (:func:`week_start_day`, Monday by default)."""
    if interval == "day":
        return day
    if interval == "week":
        return day - timedelta(days=(day.weekday() - week_start) % 7)
    if interval == "month":
        return day.replace(day=1)
    return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)


def next_start(start: date, interval: str) -> date:
    """The first day of the bucket after the one starting on ``start``."""
    if interval == "day":
        return start + timedelta(days=1)
    if interval == "week":
        return start + timedelta(weeks=1)
    months = 1 if interval == "month" else 3
    month = start.month - 1 + months
    return date(start.year + month // 12, month % 12 + 1, 1)


def _back(start: date, interval: str, n: int) -> date:
    """The start of the bucket ``n`` buckets before the one starting on ``start``."""
    if interval == "day":
        return start - timedelta(days=n)
    if interval == "week":
        return start - timedelta(weeks=n)
    months = n * (1 if interval == "month" else 3)
    index = start.year * 12 + start.month - 1 - months
    return date(index // 12, index % 12 + 1, 1)


#: Buckets shown when no range is given: 90 days, 26 weeks, 12 months, 8 quarters.
DEFAULT_BUCKETS = {"day": 90, "week": 26, "month": 12, "quarter": 8}


def date_range(
    today: date,
    interval: str,
    first: date | None = None,
    last: date | None = None,
    preset: str | None = None,
    week_start: int = 0,
) -> tuple[date, date]:
    """The first and last day (both included) of the series, in the org's calendar
    (weeks starting on weekday ``week_start``)."""
    check_days(**{"from": first, "to": last})
    if preset:
        if preset.startswith("last_") and preset.endswith("_days"):
            return today - timedelta(days=int(preset.split("_")[1]) - 1), today
        this_quarter = bucket_start(today, "quarter")
        if preset == "this_quarter":
            return this_quarter, today
        return _back(this_quarter, "quarter", 1), this_quarter - timedelta(days=1)
    if first is None and last is None:
        last = today
        first = _back(
            bucket_start(today, interval, week_start), interval, DEFAULT_BUCKETS[interval] - 1
        )
    elif first is None:
        first = _back(
            bucket_start(last, interval, week_start), interval, DEFAULT_BUCKETS[interval] - 1
        )
    elif last is None:
        last = max(first, today)
    if first > last:
        raise ServiceError("From must be on or before To.", field="from")
    return first, last


def buckets(
    first: date, last: date, interval: str, week_start: int = 0
) -> list[tuple[date, date, date]]:
    """``(bucket start, first day, last day)`` of every bucket touching the range,
    its days cut to the range (a week of a 30-day range may be partial)."""
    out = []
    start = bucket_start(first, interval, week_start)
    while start <= last:
        end = next_start(start, interval)
        out.append((start, max(start, first), min(end - timedelta(days=1), last)))
        if len(out) > MAX_BUCKETS:
            raise ServiceError(
                f"That range has more than {MAX_BUCKETS} {interval}s; "
                "choose a shorter range or a longer interval.",
                field="interval",
            )
        start = end
    return out


def series(
    scope: Scope,
    metric: str,
    dimension: str,
    interval: str,
    conditions: list[ColumnElement[bool]] = (),
    *,
    first: date | None = None,
    last: date | None = None,
    preset: str | None = None,
    split: str | None = None,
) -> dict[str, Any]:
    """``metric`` per ``interval`` of the tasks' creation or completion time, oldest
    first, empty buckets as zeros; each point carries its days and the PQL of its
    tasks (docs/analytics.md#time). ``split`` (one of the five dimensions) adds a
    series per value of it, whose buckets add up to the points."""
    weekday = week_start_day(scope.org)
    first, last = date_range(scope.today, interval, first, last, preset, weekday)
    parts = buckets(first, last, interval, weekday)
    at = _column(dimension)
    edges = [(scope.day_start(lo), scope.day_start(hi + timedelta(days=1))) for _, lo, hi in parts]
    lines: list[dict[str, Any]] = []
    if time_rollup.answers(dimension, metric, conditions, split):
        # The maintained rollup (docs/analytics.md#time): no filter but the scope's.
        bounds = [lo for lo, _ in edges] + [edges[-1][1]]
        found = time_rollup.counts(
            scope, dimension, bounds, split is not None, lambda at: _task_where(scope, at)
        )
        if split is None:
            values = found.get(None, [0] * len(parts))
        else:
            lines = _lines(split, {dimensions.key_of(k): v for k, v in found.items()})
            values = [sum(line["values"][i] for line in lines) for i in range(len(parts))]
    else:
        values, lines = _scan(scope, metric, at, edges, conditions, split)
    points = [
        {
            "key": start.isoformat(),
            "value": int(n),
            "id": None,
            "start": lo,
            "end": hi,
            "pql": days_pql(dimension, lo, hi),
        }
        for (start, lo, hi), n in zip(parts, values, strict=True)
    ]
    return {
        "metric": metric,
        "dimension": dimension,
        "interval": interval,
        "first_day": first,
        "last_day": last,
        "points": points,
        **({"split": split, "series": lines} if split else {}),
    }


def _task_where(scope: Scope, at: Any) -> list[ColumnElement[bool]]:
    """The tasks a series over ``at`` counts, before any filter or range."""
    where = scope.where()
    if at is Task.completed_at:
        # A completion time is a completed task's: a reopened one has none. Stated
        # literally, as ix_tasks_completed's predicate is, so both planners can range
        # read that index by org and completion time (rollups.workload does the same).
        where.append(Task.state_category == literal_column(f"'{COMPLETED}'"))
    return where


def _scan(
    scope: Scope,
    metric: str,
    at: Any,
    edges: list[tuple[Any, Any]],
    conditions: list[ColumnElement[bool]],
    split: str | None,
) -> tuple[list[int], list[dict[str, Any]]]:
    """The series read from the tasks, for what the rollup does not keep (a filter,
    the open metric, a split by another dimension): one statement, a count per
    bucket."""
    where = [*_task_where(scope, at), *conditions, at >= edges[0][0], at < edges[-1][1]]
    extra = metric_condition(metric)
    if extra is not None:
        where.append(extra)
    tune_for_analytics()
    columns = [func.count().filter(and_(at >= lo, at < hi)) for lo, hi in edges]
    whole_quarters = all(int(lo.timestamp()) % 900 == 0 for lo, _ in edges)
    if split is None and whole_quarters and db.session.get_bind().dialect.name == "sqlite":
        # Measured (bench/analytics_time.py): SQLite pays for each filter on each row,
        # PostgreSQL does not and is slower grouping by quarter hour.
        return _by_quarter_hour(at, where, [lo for lo, _ in edges]), []
    if split is None:
        return list(db.session.execute(select(*columns).select_from(Task).where(*where)).one()), []
    lines = _split(split, columns, where)
    return [sum(line["values"][i] for line in lines) for i in range(len(edges))], lines


def _by_quarter_hour(at: Any, where: list[ColumnElement[bool]], starts: list[Any]) -> list[int]:
    """The count per bucket from one count per UTC quarter hour: every bucket starts at a
    local midnight that is a whole quarter hour (checked by the caller), so each quarter
    hour lies in one bucket. Cheaper than a filter per bucket when there are many."""
    quarter = quarter_hour(at).label("quarter")
    rows = db.session.execute(
        select(quarter, func.count()).select_from(Task).where(*where).group_by(quarter)
    )
    bounds = [int(lo.timestamp()) // 900 for lo in starts]
    values = [0] * len(starts)
    for q, n in rows:
        values[bisect_right(bounds, int(q)) - 1] += int(n)
    return values


def _split(
    split: str, columns: list[Any], where: list[ColumnElement[bool]]
) -> list[dict[str, Any]]:
    """One row of bucket counts per value of ``split`` (states of one name are one
    value, as on the custom chart), in the dimension's order; values with no task in
    the range do not appear."""
    group = dimensions.column(split)
    query = select(group, *columns).select_from(Task).where(*where).group_by(group)
    if dimensions.needs_states(split):
        query = query.join(State, State.id == Task.state_id)
    merged: dict[str, list[int]] = {}
    for key, *counts in db.session.execute(query):
        row = merged.setdefault(dimensions.key_of(key), [0] * len(counts))
        merged[dimensions.key_of(key)] = [a + int(b) for a, b in zip(row, counts, strict=True)]
    return _lines(split, merged)


def _lines(split: str, merged: dict[str, list[int]]) -> list[dict[str, Any]]:
    """The series of a split, from the counts per bucket of each value's key."""
    names = dimensions.labels(split, merged)
    has_id = split in ("assignee", "project")
    return [
        {
            "key": names[k],
            "id": k if has_id and k != dimensions.UNASSIGNED else None,
            "split_key": k,
            "values": merged[k],
        }
        for k in dimensions.ordered(split, merged, names)
        if any(merged[k])
    ]


def add_links(result: dict[str, Any], scope: Scope, metric: str, layers: list[str | None]) -> None:
    """Give every point, every split series' bucket and the whole range an href
    (in place): the tasks that count, each filter layer, the metric, the bucket's
    days and the series' value."""
    parts = [*(drill.user_filter(layer) for layer in layers), drill.metric_clause(metric)]
    slug, project_id = scope.org.slug, scope.project_id
    pqls = [p["pql"] for p in result["points"]]

    def point_href(pql: str) -> str | None:
        return drill.href(slug, project_id, drill.expression(*parts, pql))

    for point, href in zip(result["points"], _alike(point_href, pqls), strict=True):
        point["href"] = href
    everything = days_pql(result["dimension"], result["first_day"], result["last_day"])
    result["total_href"] = point_href(everything)
    split = result.get("split")
    if not split:
        return
    names = drill.Names(scope.org_id).load(split, [s["id"] for s in result["series"]])
    for line in result["series"]:
        value = [(split, line["split_key"])]
        line["hrefs"] = _alike(
            lambda pql, value=value: drill.link(slug, project_id, [*parts, pql], value, names),
            pqls,
        )


#: What werkzeug leaves unescaped in a query value (``werkzeug.urls._urlencode``).
_SAFE = "!$'()*,/:;?@"


def _alike(make: Any, pqls: list[str]) -> list[str | None]:
    """``make(pql)`` for each of ``pqls``, links that differ only in a bucket's days:
    the first is built (url_for, which costs ~0.1 ms: 470 links for a year of weeks
    split by 8 projects), the others are it with the days' encoded text swapped. The
    days of every bucket have one length, so the PQL length limit decides alike."""
    if not pqls:
        return []
    first = make(pqls[0])
    token = quote_plus(pqls[0], safe=_SAFE)
    if first is None or first.count(token) != 1:
        return [first, *(make(pql) for pql in pqls[1:])]
    return [first, *(first.replace(token, quote_plus(pql, safe=_SAFE)) for pql in pqls[1:])]


def days_pql(dimension: str, first: date, last: date) -> str:
    """PQL for the tasks created (completed) from ``first`` to ``last``, whole days of
    the org's zone as the series counts them (docs/pql.md)."""
    field = _PQL_FIELD[dimension]
    # The series counts completion times of completed tasks only, whatever the metric.
    done = "statusCategory = completed AND " if dimension == "completed" else ""
    return f"{done}{field} >= {first.isoformat()} AND {field} <= {last.isoformat()}"
