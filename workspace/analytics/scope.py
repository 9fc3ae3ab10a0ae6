""" "The tasks that count": the one place every rollup starts from.

A task counts when it is live: not in triage, not archived, not a draft, not
deleted, in the org (and the project, when one is given). The rule itself is written
once, ``counted_rule`` in workspace/core/models/tasks.py, beside the partial index
``ix_tasks_counted`` that states it as its predicate (``COUNTED_TASKS_PREDICATE``);
SQLAlchemy renders it here exactly as there, otherwise neither SQLite nor PostgreSQL
can prove the index applies (docs/analytics.md#how-it-stays-fast).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import BigInteger, ColumnElement, and_, literal_column, text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from workspace import replica
from workspace.core.models import Org, Project, Task
from workspace.core.models.projects import CLOSED_CATEGORIES, StateCategory
from workspace.core.models.tasks import counted_rule
from workspace.core.projects import get_project
from workspace.errors import NotFoundError
from workspace.extensions import db
from workspace.transaction import run_deferred_triggers

#: Built once: an expression is immutable, and every rollup statement starts from it.
_COUNTED = and_(*counted_rule(Task))


def counted_predicate() -> ColumnElement[bool]:
    """The rule (``counted_rule``) over ``Task``: the partial index's predicate, rendered
    literally (no bound parameters, which a planner cannot match against an index
    predicate)."""
    return _COUNTED


class grouped(FunctionElement):
    """A column to GROUP BY (and select) that no index may be chosen for.

    Grouping by ``assignee_id``, ``project_id``, ``cycle_id`` or ``module_id`` tempts
    SQLite, once ``ANALYZE`` has run, to walk that column's own index over every
    org's rows to skip a sort (1.2 s instead of 0.2 s at 1M tasks). On SQLite this
    renders ``+column``, a no-op that no index matches, so the org-leading covering
    index wins whatever the statistics; elsewhere the column itself.
    """

    name = "grouped"
    inherit_cache = True

    def __init__(self, column: Any) -> None:
        super().__init__(column)
        self.type = column.type


@compiles(grouped)
def _grouped(element: grouped, compiler: Any, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(grouped, "sqlite")
def _grouped_sqlite(element: grouped, compiler: Any, **kw: Any) -> str:
    return "+" + compiler.process(element.clauses, **kw)


class epoch_slot(FunctionElement):
    """Which slot of ``seconds`` since 1970 a naive-UTC timestamp falls in, as a
    whole number: ``epoch_slot(at, 3600)`` is its UTC hour, ``epoch_slot(at, 900)``
    its UTC quarter hour (every zone's offset is a whole number of quarter hours, so
    a quarter hour lies inside one local day of any zone). The hourly rollups'
    triggers compute the same number in their own SQL."""

    name = "epoch_slot"
    inherit_cache = True
    type = BigInteger()

    def __init__(self, at: Any, seconds: int) -> None:
        # The width is SQL text, not a parameter, so it is part of the cache key.
        super().__init__(at, literal_column(str(int(seconds))))


@compiles(epoch_slot)
def _epoch_slot(element: epoch_slot, compiler: Any, **kw: Any) -> str:
    at, seconds = (compiler.process(c, **kw) for c in element.clauses.clauses)
    return f"CAST(floor(extract(epoch FROM {at}) / {seconds}) AS BIGINT)"


@compiles(epoch_slot, "sqlite")
def _epoch_slot_sqlite(element: epoch_slot, compiler: Any, **kw: Any) -> str:
    at, seconds = (compiler.process(c, **kw) for c in element.clauses.clauses)
    return f"(CAST(strftime('%s', {at}) AS INTEGER) / {seconds})"


#: PostgreSQL settings for analytics reads (docs/analytics.md#how-it-stays-fast).
#: JIT compiled each statement anew (145-190 ms, more than the read itself); a
#: parallel sequential scan of every org's rows lost to the org's index-only scan
#: (overview 160 vs 107 ms). ``enable_seqscan = off`` does not forbid a sequential
#: scan, it prices it last: every rollup has an org-leading index, so statistics that
#: make one org look like most of the table no longer turn a read of that org into a
#: read of all of them.
POSTGRES_READ_SETTINGS = (
    "SET LOCAL jit = off",
    "SET LOCAL max_parallel_workers_per_gather = 0",
    "SET LOCAL enable_seqscan = off",
)
_TUNED = "analytics_tuned_transaction"
#: ``session.info`` key: the transaction whose queued triggers run at once.
_IMMEDIATE = "analytics_immediate_transaction"


def tune_for_analytics() -> None:
    """Apply :data:`POSTGRES_READ_SETTINGS` to the current transaction, once.

    ``SET LOCAL`` lasts until the transaction ends, so nothing outside analytics
    inherits it; a later transaction of the same session is tuned again."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    session = db.session()
    transaction = session.get_transaction()
    if transaction is None or session.info.get(_TUNED) is not transaction:
        for statement in POSTGRES_READ_SETTINGS:
            session.execute(text(statement))
        transaction = session.info[_TUNED] = session.get_transaction()
    if replica.wrote(session) and session.info.get(_IMMEDIATE) is not transaction:
        # Its own writes count (migration 0036). Only once it wrote: a read-only
        # transaction has nothing queued, and a read sent to the standby would open a
        # primary connection for nothing.
        run_deferred_triggers()
        session.info[_IMMEDIATE] = transaction


def counted_tasks(
    org_id: uuid.UUID, project_id: uuid.UUID | None = None
) -> list[ColumnElement[bool]]:
    """WHERE conditions selecting the tasks that count in an org (and project)."""
    conditions = [Task.org_id == org_id, counted_predicate()]
    if project_id is not None:
        conditions.append(Task.project_id == project_id)
    return conditions


@dataclass(frozen=True)
class Scope:
    """Who is asking about what: the org, the optional project, and the clock."""

    org: Org
    project: Project | None
    #: The moment "now" for this computation (UTC); tests pin it.
    now: datetime

    @property
    def org_id(self) -> uuid.UUID:
        return self.org.id

    @property
    def project_id(self) -> uuid.UUID | None:
        return self.project.id if self.project else None

    @property
    def tz(self) -> ZoneInfo:
        return self.org.zone

    @property
    def today(self) -> date:
        """Today in the org's time zone: what "overdue" compares due dates with."""
        return self.now.astimezone(self.tz).date()

    def where(self) -> list[ColumnElement[bool]]:
        """The conditions every rollup statement starts from; building them also
        tunes the transaction for analytics reads (:func:`tune_for_analytics`)."""
        tune_for_analytics()
        return counted_tasks(self.org.id, self.project_id)

    def day_start(self, day: date) -> datetime:
        """Midnight of ``day`` in the org's zone, as an aware UTC datetime."""
        return datetime.combine(day, time(), self.tz).astimezone(UTC)


def overdue_condition(scope: Scope) -> ColumnElement[bool]:
    """Due before today (org time zone) and neither completed nor cancelled."""
    return and_(
        Task.due_date.is_not(None),
        Task.due_date < scope.today,
        Task.state_category.not_in([c.value for c in CLOSED_CATEGORIES]),
    )


def metric_condition(metric: str) -> ColumnElement[bool] | None:
    """What a chart's metric counts (docs/analytics.md#definitions): ``done`` the
    completed tasks, ``open`` every other; ``count`` all of them (no condition)."""
    if metric == "done":
        return Task.state_category == StateCategory.COMPLETED.value
    if metric == "open":
        return Task.state_category != StateCategory.COMPLETED.value
    return None


def make_scope(org: Org, project_id: uuid.UUID | None = None, now: datetime | None = None) -> Scope:
    """The scope for a request; a project of another org is a 404."""
    project = None
    if project_id is not None:
        try:
            project = get_project(org.id, project_id)
        except NotFoundError as exc:
            raise NotFoundError(
                "No such project in this organization.", field="project_id"
            ) from exc
    return Scope(org=org, project=project, now=now or datetime.now(UTC))
