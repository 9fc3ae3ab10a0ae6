"""Whether the maintained rollups (docs/analytics.md#maintained-rollups) equal a scan
of what they count, and the repair when they do not: ``flask analytics verify``, the
bench loader's rebuild after a bulk load, and the tests' check after concurrent writes.

Each rollup is described once as the ``GROUP BY`` a scan would compute (:data:`ROLLUPS`);
:func:`verify` compares that with the table, org by org, and rewrites the orgs that
differ.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Date,
    Table,
    cast,
    func,
    literal_column,
    or_,
    select,
    text,
    type_coerce,
)

from workspace.analytics import cycle_rollup, cycle_weeks, flow_rollup
from workspace.analytics.scope import counted_predicate
from workspace.analytics.task_counts import (
    ASSIGNEE_KEPT,
    COMPLETED,
    KEPT,
    PLAN_KEPT,
    TOTALS_KEPT,
    completion_rows,
    task_assignee_counts,
    task_completed_days,
    task_counts,
    task_done_counts,
    task_due_counts,
    task_plan_counts,
    task_totals,
)
from workspace.analytics.time_rollup import TimeCountsCheck
from workspace.core.models import Task, TaskActivity
from workspace.core.models.projects import CLOSED_CATEGORIES
from workspace.extensions import db
from workspace.transaction import run_deferred_triggers
from workspace.types import UTCDateTime


def _hour(column: Any) -> Any:
    """The UTC hour of a timestamp, exactly as the triggers compute it."""
    if db.engine.dialect.name == "postgresql":
        return type_coerce(func.date_trunc("hour", column), UTCDateTime())
    return type_coerce(
        func.substr(column, 1, 13).concat(literal_column("':00:00.000000'")), UTCDateTime()
    )


def _day(column: Any) -> Any:
    """The UTC day of a timestamp, exactly as the triggers compute it."""
    if db.engine.dialect.name == "postgresql":
        return cast(column, Date)
    return type_coerce(func.substr(column, 1, 10), Date())


def _entered_ms(column: Any) -> Any:
    """Milliseconds since 2020-01-01, computed exactly as the triggers compute it."""
    if db.engine.dialect.name == "postgresql":
        since = column - literal_column("timestamp '2020-01-01'")
        return func.round(func.extract("epoch", since) * 1000).cast(BigInteger)
    days = func.julianday(column) - literal_column("2458849.5")
    return func.cast(func.round(days * literal_column("86400000.0")), BigInteger)


def _open_due() -> list[Any]:
    """Open tasks with a due date (task_due_counts)."""
    closed = [c.value for c in CLOSED_CATEGORIES]
    return [Task.due_date.is_not(None), Task.state_category.not_in(closed)]


def _completed_assigned() -> list[Any]:
    """Completed tasks with a completion time and an assignee (task_completed_days)."""
    return [
        Task.state_category == COMPLETED,
        Task.completed_at.is_not(None),
        Task.assignee_id.is_not(None),
    ]


def _for_org(query: Any, column: Any, org_id: uuid.UUID | None) -> Any:
    return query.where(column == org_id) if org_id is not None else query


@dataclass(frozen=True)
class _Rollup:
    """What a rollup table keeps, as a scan of the tasks would compute it: its keys
    (task columns, or ``computed`` from them), what it sums, and which of the tasks
    that count it keeps (``where``)."""

    table: Table
    keys: tuple[str, ...]
    sums: tuple[str, ...] = ()
    where: Callable[[], list[Any]] = list
    #: Keys that are an expression over the task's columns (built when scanning, as
    #: the expressions depend on the database).
    computed: Callable[[], dict[str, Any]] = dict

    def scan(self, org_id: uuid.UUID | None) -> Any:
        tasks = Task.__table__
        computed = self.computed()
        columns = [computed[k].label(k) if k in computed else tasks.c[k] for k in self.keys]
        sums = [func.sum(_entered_ms(tasks.c.state_entered_at)).label(s) for s in self.sums]
        query = (
            select(*columns, func.count().label("n"), *sums)
            .where(counted_predicate(), *self.where())
            .group_by(*columns)
        )
        return _for_org(query, tasks.c.org_id, org_id)


@dataclass(frozen=True)
class _HistoryRollup(_Rollup):
    """The completions per hour, as a scan of the history of the tasks that count
    would compute them."""

    def scan(self, org_id: uuid.UUID | None) -> Any:
        tasks = Task.__table__
        hour = _hour(TaskActivity.created_at).label("hour_start")
        query = (
            select(tasks.c.org_id, hour, tasks.c.project_id, func.count().label("n"))
            .select_from(TaskActivity)
            .join(tasks, tasks.c.id == TaskActivity.task_id)
            .where(counted_predicate(), *completion_rows())
            .group_by(tasks.c.org_id, hour, tasks.c.project_id)
        )
        return _for_org(query, tasks.c.org_id, org_id)


ROLLUPS = (
    _Rollup(task_counts, KEPT, ("entered_ms",)),
    _Rollup(task_totals, TOTALS_KEPT, ("entered_ms",)),
    _Rollup(task_assignee_counts, ASSIGNEE_KEPT),
    _Rollup(task_due_counts, ("org_id", "project_id", "due_date"), where=_open_due),
    _Rollup(task_plan_counts, PLAN_KEPT),
    _HistoryRollup(task_done_counts, ("org_id", "hour_start", "project_id")),
    _Rollup(
        task_completed_days,
        ("org_id", "completed_on", "assignee_id"),
        where=_completed_assigned,
        computed=lambda: {"completed_on": _day(Task.__table__.c.completed_at)},
    ),
    TimeCountsCheck(),  # the time series' created and completed per hour and day
    # Flow over time (migration 0021): moves per hour and day, each completion's cycle.
    *flow_rollup.ROLLUPS,
    *cycle_rollup.ROLLUPS,
    *cycle_weeks.ROLLUPS,  # after the cycle times it counts (migration 0028)
)


@dataclass
class Verification:
    buckets: int = 0
    missing: int = 0
    extra: int = 0
    wrong: int = 0
    repaired: bool = False

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.wrong)


def verify(
    org_id: uuid.UUID | None = None,
    *,
    repair: bool = False,
    on_rollup: Callable[[int], None] | None = None,
) -> Verification:
    """Compare every rollup with a scan of the tasks (one org, or all); with ``repair``,
    rewrite the differing orgs' rows from the scan. The caller commits. ``on_rollup(1)``
    hears of each rollup compared (and repaired), the command's progress.

    On PostgreSQL the tasks and their history are locked against writes (SHARE mode)
    for the comparison and repair, so a concurrent task write cannot slip between scan
    and rewrite; SQLite's one writer gives the same when the caller holds the write
    lock."""
    if db.engine.dialect.name == "postgresql":
        # The history too: the completion counts follow its inserts.
        db.session.execute(text("LOCK TABLE tasks, task_activity IN SHARE MODE"))
    run_deferred_triggers()
    result = Verification()
    for rollup in ROLLUPS:
        differing = _compare(rollup, org_id, result)
        if repair and differing:
            for org in differing:
                _rebuild(rollup, org)
            result.repaired = True
        if on_rollup is not None:
            on_rollup(1)
    db.session.flush()
    return result


def _compare(rollup: _Rollup, org_id: uuid.UUID | None, result: Verification) -> set:
    """Adds this rollup's differences to ``result``; returns the orgs that differ."""
    values = getattr(rollup, "values", ("n", *rollup.sums))

    def keyed(rows: Any) -> dict[tuple, tuple]:
        return {
            tuple(str(r._mapping[k]) for k in rollup.keys): tuple(r._mapping[v] for v in values)
            for r in rows
        }

    expected = keyed(db.session.execute(rollup.scan(org_id)))
    held = keyed(db.session.execute(_held(rollup, values, org_id)))
    missing = [k for k in expected if k not in held]
    extra = [k for k in held if k not in expected]
    wrong = [k for k in expected if k in held and held[k] != expected[k]]
    result.buckets += len(expected)
    result.missing += len(missing)
    result.extra += len(extra)
    result.wrong += len(wrong)
    return {uuid.UUID(k[0]) for k in (*missing, *extra, *wrong)}


def _held(rollup: _Rollup, values: tuple[str, ...], org_id: uuid.UUID | None) -> Any:
    """What the table holds per bucket: its rows, or where writers add into slots of
    their own (migrations 0036, 0038), the slots summed and the buckets that sum to
    zero left out, as the scan leaves them out."""
    table = rollup.table
    query = select(table)
    if "slot" in table.c:
        keys = [table.c[k] for k in rollup.keys]
        query = (
            select(*keys, *(func.sum(table.c[v]).label(v) for v in values))
            .group_by(*keys)
            .having(or_(*(func.sum(table.c[v]) != 0 for v in values)))
        )
    if org_id is not None:
        query = query.where(table.c.org_id == org_id)
    return query


def rebuild(org_id: uuid.UUID) -> None:
    """Rewrite every rollup of ``org_id`` from one scan each, without comparing first:
    after a bulk load that bypassed the triggers the rows are known to be missing, and
    a comparison would scan everything a second time. The caller commits."""
    run_deferred_triggers()
    for rollup in ROLLUPS:
        _rebuild(rollup, org_id)
    db.session.flush()


def _rebuild(rollup: _Rollup, org_id: uuid.UUID) -> None:
    table = rollup.table
    db.session.execute(table.delete().where(table.c.org_id == org_id))
    scan = rollup.scan(org_id).subquery()
    db.session.execute(table.insert().from_select([c.name for c in scan.c], select(scan)))
