"""Plans that stay right: every rollup statement, as the real service functions issue
it, reads the org's rows through an index that leads with the org, on a 100,000-task
multi-org dataset with planner statistics (``ANALYZE``), on SQLite and PostgreSQL
(docs/analytics.md#how-it-stays-fast).

Statements are captured with a ``before_cursor_execute`` listener while the rollups
run, then replayed in order on one connection: settings as they are (PostgreSQL's
``SET LOCAL``), reads under ``EXPLAIN``. So the test follows the code, not a copy.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event, text

from tests.analytics import plan_data
from tests.conftest import _clean
from workspace.analytics import (
    consistency,
    flow_time,
    montecarlo,
    rollup_rewrite,
    rollups,
    time_series,
)
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.query import DashboardQuery
from workspace.analytics.scope import make_scope
from workspace.core.models import Org, Task
from workspace.extensions import db

TASKS = 100_000
#: Tables a rollup may read only through an org-leading index.
ORG_TABLES = ("tasks", "task_activity", *(r.table.name for r in consistency.ROLLUPS))
#: Per-row primary-key lookups (forecast joins each state change to its task).
PK_INDEXES = ("pk_tasks", "sqlite_autoindex_tasks_1")


@pytest.fixture(scope="module")
def plans_db(app_session: Flask) -> Iterator[plan_data.PlanData]:
    _clean(app_session)
    with app_session.app_context():
        data = plan_data.load(TASKS)
    yield data
    with app_session.app_context():
        plan_data.unload()
    _clean(app_session)


@dataclass
class Read:
    """One access to a table in a plan."""

    table: str
    index: str | None
    #: The index condition (PostgreSQL) or the SEARCH constraint (SQLite).
    condition: str
    scan: bool
    text: str


def _capture(app: Flask, run: Callable[[], Any]) -> list[tuple[str, Any]]:
    captured: list[tuple[str, Any]] = []

    def grab(conn, cursor, statement, parameters, context, executemany):
        captured.append((statement, parameters))

    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", grab)
        try:
            run()
        finally:
            event.remove(db.engine, "before_cursor_execute", grab)
            db.session.rollback()
    return captured


def _explain(app: Flask, captured: list[tuple[str, Any]]) -> list[tuple[str, list[Read]]]:
    """(statement, reads) for each SELECT, replayed in one transaction after the
    settings the code made before it."""
    out = []
    with app.app_context(), db.engine.connect() as conn:
        postgres = conn.dialect.name == "postgresql"
        for statement, parameters in captured:
            head = statement.lstrip().upper()
            if head.startswith("SET "):
                conn.exec_driver_sql(statement, parameters)
                continue
            if not (head.startswith("SELECT") or head.startswith("WITH")):
                continue
            if not any(re.search(rf"\b{t}\b", statement) for t in ORG_TABLES):
                continue
            if postgres:
                row = conn.exec_driver_sql(
                    "EXPLAIN (FORMAT JSON) " + statement, parameters
                ).scalar_one()
                plan = row if isinstance(row, list) else json.loads(row)
                reads = list(_pg_reads(plan[0]["Plan"]))
            else:
                rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                reads = [r for r in map(_sqlite_read, (r[-1] for r in rows)) if r]
            out.append((statement, reads))
        conn.rollback()
    return out


def _pg_reads(node: dict) -> Iterator[Read]:
    relation = node.get("Relation Name")
    if relation:
        kind = node["Node Type"]
        condition = node.get("Index Cond", "")
        index = node.get("Index Name")
        if kind == "Bitmap Heap Scan":
            inner = node["Plans"][0]
            index, condition = inner.get("Index Name"), inner.get("Index Cond", "")
        yield Read(relation, index, condition, kind == "Seq Scan", json.dumps(node)[:600])
    for child in node.get("Plans", []):
        if child.get("Node Type") == "Bitmap Index Scan":
            continue
        yield from _pg_reads(child)


_SQLITE = re.compile(
    r"^(?P<op>SCAN|SEARCH) (?P<table>\w+)"
    r"(?: USING (?:COVERING |INTEGER PRIMARY KEY)?(?:INDEX (?P<index>\w+)|(?P<pk>PRIMARY KEY))?)?"
    r"(?: \((?P<cond>[^)]*)\))?"
)


def _sqlite_read(detail: str) -> Read | None:
    m = _SQLITE.match(detail)
    if not m:
        return None
    # A WITHOUT ROWID table (task_time_counts) is searched by its primary key itself.
    index = m["index"] or ("PRIMARY KEY" if m["pk"] else None)
    return Read(m["table"], index, m["cond"] or "", m["op"] == "SCAN", detail)


def _assert_org_reads(
    plans: list[tuple[str, list[Read]]], intended: set[str], keys: tuple[str, ...] = ("org_id",)
) -> None:
    """Every read of an org table uses an index searched by one of ``keys`` (the org),
    or a primary-key lookup; tasks are read through one of ``intended``."""
    assert plans, "no statement read the tasks"
    seen = set()
    for statement, reads in plans:
        for read in reads:
            if read.table not in ORG_TABLES:
                continue
            where = f"{read.text}\n-- in --\n{statement}"
            assert not read.scan, f"whole-table scan of {read.table}: {where}"
            assert read.index, f"{read.table} read without an index: {where}"
            if read.index in PK_INDEXES:
                continue
            assert any(k in read.condition for k in keys), f"{read.index} not by {keys}: {where}"
            if read.table == "tasks":
                assert read.index in intended, f"{read.index}, not {intended}: {where}"
            seen.add(read.index)
    assert seen, "no org-scoped read at all"


COUNTED = {"ix_tasks_counted"}
#: The partial indexes of the tasks that count (and of the completed ones) lead with the org.
ORG_LEADING = {"ix_tasks_counted", "ix_tasks_completed"}


def _rollups() -> list[tuple[str, Callable, set[str]]]:
    cases: list[tuple[str, Callable, set[str]]] = [
        ("overview", rollups.overview, COUNTED),
        ("flow", rollups.flow, COUNTED),
        ("workload", rollups.workload, {"ix_tasks_completed"}),
        ("scatter cycle", lambda s: rollups.scatter(s, "cycle"), COUNTED),
        ("scatter module", lambda s: rollups.scatter(s, "module"), COUNTED),
        ("forecast", lambda s: rollups.forecast(s, 8), COUNTED),
        ("pivot", lambda s: rollups.pivot(s, "assignee", "status"), COUNTED),
        ("pivot project", lambda s: rollups.pivot(s, "project", "priority"), COUNTED),
    ]
    # Over time (issue 28): the time series, the cumulative flow, cycle time and the
    # Monte Carlo forecast read their own rollups (migrations 0021, 0023).
    cases += [
        ("done per week", lambda s: time_series.series(s, "done", "completed", "week"), COUNTED),
        ("created per day", lambda s: time_series.series(s, "count", "created", "day"), COUNTED),
        (
            "completed per week by project",
            lambda s: time_series.series(s, "count", "completed", "week", split="project"),
            COUNTED,
        ),
        ("cumulative flow", flow_time.cumulative_flow, COUNTED),
        ("cycle time", flow_time.cycle_time, COUNTED),
        ("monte carlo forecast", lambda s: montecarlo.forecast_dates(s, 8), COUNTED),
    ]
    for dimension in ("status", "priority", "kind", "assignee", "project"):
        for metric in ("count", "open"):
            cases.append(
                (
                    f"custom {metric} by {dimension}",
                    lambda s, m=metric, d=dimension: rollups.custom_chart(s, m, d),
                    COUNTED,
                )
            )
    return cases


CASES = _rollups()


@pytest.mark.parametrize("name, run, intended", CASES, ids=[c[0] for c in CASES])
def test_rollup_reads_only_its_org_through_the_intended_index(
    app_session, plans_db, name, run, intended
):
    def call():
        run(make_scope(db.session.get(Org, plans_db.org_ids[0])))

    _assert_org_reads(_explain(app_session, _capture(app_session, call)), intended)


def test_rollups_of_a_small_org_read_only_that_org(app_session, plans_db):
    """The smallest org (4% of the rows): the planner's other temptation."""

    def call():
        scope = make_scope(db.session.get(Org, plans_db.org_ids[-1]))
        for _, run, _ in CASES:
            run(scope)

    _assert_org_reads(_explain(app_session, _capture(app_session, call)), ORG_LEADING)


@pytest.mark.parametrize("dimension", ["status", "priority", "kind", "assignee", "project"])
def test_dashboard_widgets_read_only_their_org(app_session, plans_db, dimension):
    def call():
        org = db.session.get(Org, plans_db.org_ids[0])
        specs = [
            WidgetSpec("a", "All", "bar", "count", dimension),
            WidgetSpec("b", "Open", "bar", "open", dimension),
            WidgetSpec("c", "Done", "bar", "done", dimension, project_id=plans_db.project_ids[0]),
            WidgetSpec("d", "Bugs", "bar", "count", dimension, filter="kind = bug"),
        ]
        DashboardQuery(org, plans_db.owner_id, "priority != none").compute(specs)

    _assert_org_reads(_explain(app_session, _capture(app_session, call)), COUNTED)


#: Which table the rewriter should pick (docs/analytics.md#maintained-rollups).
ANSWERED = [
    ("overview", rollups.overview, "task_totals"),
    ("pivot by assignee", lambda s: rollups.pivot(s, "assignee", "status"), "task_assignee_counts"),
    (
        "custom by kind, assigned",
        lambda s: rollups.custom_chart(s, "count", "kind", [Task.assignee_id.is_not(None)]),
        "task_counts",
    ),
    ("scatter", lambda s: rollups.scatter(s, "module"), "task_plan_counts"),
    (
        "custom by kind, titled",
        lambda s: rollups.custom_chart(s, "count", "kind", [Task.title.contains("a")]),
        "tasks",
    ),
]


class _Said(logging.Handler):
    def __init__(self, timeline: list) -> None:
        super().__init__(logging.DEBUG)
        self.timeline = timeline

    def emit(self, record: logging.LogRecord) -> None:
        self.timeline.append(("said", record.rollup_table))


@pytest.mark.parametrize("name, run, table", ANSWERED, ids=[a[0] for a in ANSWERED])
def test_the_rewriter_says_which_table_answered(app_session, plans_db, name, run, table):
    """The rewriter's debug log names the table that answers each count, and the plan
    of the statement that follows reads that table (and not the tasks, for a rollup)."""
    timeline: list = []
    logger = logging.getLogger(rollup_rewrite.__name__)
    handler, level = _Said(timeline), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)

    def grab(conn, cursor, statement, parameters, context, executemany):
        timeline.append(("sql", (statement, parameters)))

    with app_session.app_context():
        event.listen(db.engine, "before_cursor_execute", grab)
        try:
            run(make_scope(db.session.get(Org, plans_db.org_ids[0])))
        finally:
            event.remove(db.engine, "before_cursor_execute", grab)
            logger.removeHandler(handler)
            logger.setLevel(level)
            db.session.rollback()
    said = [(entry, after) for entry, after in itertools.pairwise(timeline) if entry[0] == "said"]
    assert [entry[1] for entry, _ in said] == [table]
    ((_, answered), (kind, statement)) = said[0]
    assert kind == "sql"
    ((_, reads),) = _explain(app_session, [statement])
    tables = {read.table for read in reads}
    assert answered in tables, (answered, tables)
    if answered != "tasks":
        assert "tasks" not in tables, tables


def test_project_scope_reads_only_that_project(app_session, plans_db):
    def call():
        org = db.session.get(Org, plans_db.org_ids[0])
        scope = make_scope(org, plans_db.project_ids[1])
        for _, run, _ in CASES:
            run(scope)

    # A project's own index is as good: it holds no other org's rows either.
    _assert_org_reads(
        _explain(app_session, _capture(app_session, call)),
        ORG_LEADING | {"ix_tasks_project_state"},
        keys=("org_id", "project_id"),
    )


def test_planner_settings_hold_for_the_analytics_transaction_only(app_session, plans_db):
    with app_session.app_context():
        if db.engine.dialect.name != "postgresql":
            # SQLite has no JIT or parallel workers: an analytics read changes no setting.
            seen: list[str] = []

            def grab(conn, cursor, statement, *args):
                seen.append(statement)

            event.listen(db.engine, "before_cursor_execute", grab)
            try:
                rollups.overview(make_scope(db.session.get(Org, plans_db.org_ids[0])))
            finally:
                event.remove(db.engine, "before_cursor_execute", grab)
            assert seen and not any(s.lstrip().upper().startswith(("SET", "PRAGMA")) for s in seen)
            db.session.rollback()
            return
        show = "SELECT current_setting('jit'), current_setting('enable_seqscan')"
        assert db.session.execute(text(show)).one() == ("on", "on")
        rollups.overview(make_scope(db.session.get(Org, plans_db.org_ids[0])))
        assert db.session.execute(text(show)).one() == ("off", "off")
        db.session.commit()
        assert db.session.execute(text(show)).one() == ("on", "on")
        db.session.rollback()
