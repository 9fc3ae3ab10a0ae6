"""The scope renders exactly the partial index's predicate, so both planners use the
covering index ix_tasks_counted for the rollups (docs/analytics.md#how-it-stays-fast)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, text

from workspace.analytics import consistency, rollups
from workspace.analytics.scope import counted_predicate, make_scope
from workspace.core.models import Org, Task
from workspace.core.models.tasks import COUNTED_TASKS_PREDICATE
from workspace.extensions import db


def test_predicate_renders_like_the_index_declares_it(app):
    with app.app_context():
        dialect = db.engine.dialect
        sql = str(
            counted_predicate().compile(dialect=dialect, compile_kwargs={"literal_binds": True})
        )
    assert sql.replace("tasks.", "") == COUNTED_TASKS_PREDICATE[dialect.name]


def _plans(app, org_id, run, only_index: str | None = None):
    """EXPLAIN of every statement ``run`` issues, with its real parameters. With
    ``only_index``, PostgreSQL plans with the tasks' other secondary indexes dropped
    inside a transaction that is rolled back: on tiny test tables several indexes
    cost the same and the planner's pick among them says nothing about whether the
    one meant for the query applies."""
    captured = []
    with app.app_context():
        engine = db.engine

        def grab(conn, cursor, statement, parameters, context, executemany):
            captured.append((statement, parameters))

        event.listen(engine, "before_cursor_execute", grab)
        try:
            run(make_scope(db.session.get(Org, org_id)))
        finally:
            event.remove(engine, "before_cursor_execute", grab)
        db.session.close()  # its transaction's lock on tasks would hold up DROP INDEX
        plans = []
        dialect = engine.dialect.name
        with engine.connect() as conn:
            postgres = dialect == "postgresql"
            if postgres:
                # Tiny test tables make a sequential scan cheapest; ask whether the
                # index applies at all, which is what the predicate decides.
                conn.execute(text("SET enable_seqscan = off"))
                conn.execute(text("SET lock_timeout = '5s'"))  # fail, never hang
                if only_index:
                    others = conn.scalars(
                        text(
                            "SELECT indexname FROM pg_indexes WHERE tablename = 'tasks' "
                            "AND indexname LIKE 'ix_tasks_%' AND indexname != :keep"
                        ),
                        {"keep": only_index},
                    ).all()
                    for name in others:
                        conn.execute(text(f'DROP INDEX "{name}"'))
            prefix = "EXPLAIN " if postgres else "EXPLAIN QUERY PLAN "
            for statement, parameters in captured:
                if "FROM tasks" in statement:
                    rows = conn.exec_driver_sql(prefix + statement, parameters).all()
                    plans.append("\n".join(str(r[-1]) for r in rows))
            conn.rollback()
    return dialect, plans


@pytest.mark.parametrize(
    "rollup, index",
    [
        (rollups.workload, "ix_tasks_completed"),
        (
            lambda scope: rollups.custom_chart(
                scope, "open", "assignee", [Task.due_date.is_not(None)]
            ),
            "ix_tasks_counted",
        ),
    ],
)
def test_rollups_read_the_covering_index(app, dataset, rollup, index):
    """What the maintained rollups cannot answer scans an org-leading covering index."""
    dialect, plans = _plans(app, dataset.org.org_id, rollup, only_index=index)
    assert plans
    for plan in plans:
        assert index in plan, plan
        if dialect == "sqlite":
            assert f"COVERING INDEX {index}" in plan, plan


@pytest.mark.parametrize(
    "rollup",
    [
        rollups.overview,
        lambda scope: rollups.pivot(scope, "priority", "kind"),
        lambda scope: rollups.custom_chart(scope, "open", "assignee"),
    ],
)
def test_count_rollups_never_scan_the_tasks(app, dataset, rollup):
    """Overview, pivot and the custom chart read the maintained rollups only
    (docs/analytics.md#maintained-rollups)."""
    seen = []
    with app.app_context():
        engine = db.engine

        def grab(conn, cursor, statement, *args):
            seen.append(statement)

        event.listen(engine, "before_cursor_execute", grab)
        try:
            rollup(make_scope(db.session.get(Org, dataset.org.org_id)))
        finally:
            event.remove(engine, "before_cursor_execute", grab)
    tables = "|".join(rollup.table.name for rollup in consistency.ROLLUPS)
    assert any(re.search(rf"FROM ({tables})\b", s) for s in seen), seen
    assert not any("FROM tasks" in s for s in seen), seen
