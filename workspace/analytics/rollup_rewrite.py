"""Answer a count over the tasks from the smallest maintained rollup that can
(docs/analytics.md#maintained-rollups), and say which table answered.

A rollup statement is written once, over ``tasks``. :func:`onto_rollup` moves it onto
the first table of :data:`COUNT_TABLES` that keeps every ``tasks`` column it touches,
when its only aggregate is ``count(*)``: each column becomes the rollup's own,
``count(*)`` becomes ``sum(n)`` (``count(*) FILTER (WHERE c)`` becomes
``sum(n) FILTER (WHERE c)``), and the counted predicate's ``is_draft``, ``archived_at``
and ``deleted_at`` read as the constants they are there. Anything else (a title search,
dates, an aggregate over a column) runs over the tasks as written.
:func:`read_counts` runs the result and logs, at debug level, which table answered and
why no rollup could when none did; ``tests/analytics/test_query_plans.py`` holds the
plans to what it says.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Executable, Select, Table, false, func, null
from sqlalchemy.engine import Result
from sqlalchemy.sql import functions, visitors
from sqlalchemy.sql.expression import ColumnClause, FunctionFilter, TableClause

from workspace.analytics.task_counts import (
    ASSIGNEE_KEPT,
    KEPT,
    PLAN_KEPT,
    TOTALS_KEPT,
    task_assignee_counts,
    task_counts,
    task_plan_counts,
    task_totals,
)
from workspace.core.models import Task
from workspace.extensions import db

log = logging.getLogger(__name__)

TASKS = Task.__tablename__
#: A rollup holds only counted tasks, so these columns of the counted predicate read as
#: constants there (``is_draft = false``, ``archived_at IS NULL``, ...).
IMPLIED = {"is_draft": false, "archived_at": null, "deleted_at": null}

#: Where a statement over ``tasks`` may be answered, first fit first.
COUNT_TABLES = (
    (task_totals, TOTALS_KEPT),
    (task_assignee_counts, ASSIGNEE_KEPT),
    (task_counts, KEPT),
    (task_plan_counts, PLAN_KEPT),
)


def _tasks_column(element: Any) -> str | None:
    """The name of a ``tasks`` column (ORM expressions carry annotated copies of the
    table and its columns, so they are recognized by name, not identity)."""
    table = getattr(element, "table", None)
    if isinstance(element, ColumnClause) and table is not None and table.name == TASKS:
        return element.name
    return None


def _touched(statement: Executable) -> set[str]:
    names: set[str] = set()
    for element in visitors.iterate(statement):
        name = _tasks_column(element)
        if name is not None:
            names.add(name)
    return names


@dataclass
class _Rewrite:
    """Replaces ``tasks`` by one count table in a statement; notes what it cannot."""

    target: Table
    kept: tuple[str, ...]
    blocked: list[str] = field(default_factory=list)

    def __call__(self, element: Any, **_: Any) -> Any:
        if isinstance(element, TableClause) and element.name == TASKS:
            return self.target
        name = _tasks_column(element)
        if name is not None:
            if name in self.kept:
                return self.target.c[name]
            if name in IMPLIED:
                return IMPLIED[name]()
            self.blocked.append(name)
            return None
        n = self.target.c.n
        if isinstance(element, FunctionFilter) and isinstance(element.func, functions.count):
            # count(*) FILTER (WHERE c) -> coalesce(sum(n) FILTER (WHERE c'), 0)
            if _counts_star(element.func):
                criterion = visitors.replacement_traverse(element.criterion, {}, self)
                return func.coalesce(func.sum(n).filter(criterion), 0)
            self.blocked.append("count(column)")
            return None
        if isinstance(element, functions.count):
            if _counts_star(element):
                return func.coalesce(func.sum(n), 0)
            self.blocked.append("count(column)")
        elif isinstance(element, functions.FunctionElement) and _is_aggregate(element):
            self.blocked.append(element.name)
        return None


_AGGREGATES = {"sum", "avg", "min", "max", "array_agg", "group_concat", "string_agg"}


def _is_aggregate(element: functions.FunctionElement) -> bool:
    return getattr(element, "name", "").lower() in _AGGREGATES


def _counts_star(element: functions.count) -> bool:
    args = list(element.clauses)
    return not args or (len(args) == 1 and str(args[0]) == "*")


@dataclass(frozen=True)
class Rewrite:
    """A statement and the table that answers it."""

    statement: Executable
    #: A maintained rollup's name, or ``tasks`` when none keeps what it touches.
    table: str
    #: Why no rollup could answer it: the columns none keeps, or what it aggregates
    #: besides ``count(*)``.
    blocked: tuple[str, ...] = ()


def onto_rollup(statement: Executable) -> Rewrite:
    """``statement`` over the first count table that keeps every ``tasks`` column it
    touches; as written, over ``tasks``, when none does or it aggregates anything but
    ``count(*)``."""
    touched = _touched(statement) - set(IMPLIED)
    for table, kept in COUNT_TABLES:
        if touched <= set(kept):
            rewriter = _Rewrite(table, kept)
            rewritten = visitors.replacement_traverse(statement, {}, rewriter)
            if rewriter.blocked:
                return as_written(statement, *rewriter.blocked)
            if isinstance(rewritten, Select) and rewritten._group_by_clauses:
                # A group exists over the tasks when a task matches; on the rollup, when
                # its rows sum to more than zero: a slot's row, or a bucket a writer
                # emptied, may hold zero (migration 0038).
                rewritten = rewritten.having(func.sum(table.c.n) > 0)
            return Rewrite(rewritten, table.name)
    # Columns no rollup keeps, else (say an assignee with a cycle) no one keeps them all.
    unkept = touched - {name for _, kept in COUNT_TABLES for name in kept}
    return as_written(statement, *sorted(unkept or touched))


def as_written(statement: Executable, *blocked: str) -> Rewrite:
    """``statement`` left over the tasks (also what tests compare the rollups with)."""
    return Rewrite(statement, TASKS, blocked)


def read_counts(statement: Executable) -> Result:
    """Run a count written over ``tasks`` where it is cheapest: on the maintained rollup
    that can answer it (:func:`onto_rollup`), else over the tasks as written. Logs which
    table answered."""
    rewrite = onto_rollup(statement)
    if rewrite.blocked:
        log.debug(
            "counts read from %s: no rollup answers %s",
            rewrite.table,
            ", ".join(rewrite.blocked),
            extra={"rollup_table": rewrite.table},
        )
    else:
        log.debug("counts read from %s", rewrite.table, extra={"rollup_table": rewrite.table})
    return db.session.execute(rewrite.statement)
