"""Writers of one project do not queue on shared rollup rows (migration 0036,
docs/scaling.md#hot-writes): on PostgreSQL the arithmetic rollups run at COMMIT and
the flow and completion rollups take a slot per writer; reads stay exact either way."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select, text

from tests.factories import make_org, new_task, setup_project, state_in
from workspace.analytics import consistency, rollups, slot_fold
from workspace.analytics.flow_rollup import task_flow_days
from workspace.analytics.scope import make_scope
from workspace.analytics.task_counts import task_done_counts
from workspace.core.models import Org, Project, Task
from workspace.core.tasks import create_task
from workspace.extensions import db


def test_a_read_in_the_writing_transaction_counts_its_own_writes(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    with app.app_context():
        scope = make_scope(db.session.get(Org, org.org_id), None)
        before = rollups.overview(scope)["total"]
        owned = db.session.get(Project, uuid.UUID(project["id"]))
        create_task(owned, org.owner_id, title="Not committed yet")
        db.session.flush()
        # Same transaction, no commit: the deferred rollup triggers fire for the read.
        assert rollups.overview(scope)["total"] == before + 1
        assert consistency.verify(org.org_id).ok
        db.session.rollback()


def _two_writers(engine):
    """Two connections whose backends write into different slots (pid % 8)."""
    spare, found = [], {}
    while len(found) < 2:
        conn = engine.connect()
        slot = conn.execute(text("SELECT pg_backend_pid() % 8")).scalar_one()
        conn.rollback()
        (spare if slot in found else found.setdefault(slot, [])).append(conn)
    for conn in spare:
        conn.close()
    return [conns[0] for conns in found.values()]


@pytest.mark.postgres_only  # SQLite has one writer at a time, and only slot 0
def test_concurrent_writers_use_their_own_slots_and_the_fold_joins_them(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = state_in(states, "completed")
    tasks = [new_task(client, org, project, title=f"t{i}")["id"] for i in range(6)]
    # Two connections complete tasks of the same project in open transactions at once:
    # with one row per bucket the second would wait for the first's commit.
    with app.app_context():
        engine = db.engine
    first, second = _two_writers(engine)
    try:
        for conn, task_id in ((first, tasks[0]), (second, tasks[1])):
            conn.execute(text("SET lock_timeout = '2s'"))
            conn.execute(
                text("INSERT INTO task_activity (id, org_id, task_id, field, old_value, "
                     "new_value, old_category, new_category, created_at) VALUES "
                     "(gen_random_uuid(), :org, :task, 'state', 'Todo', 'Done', 'unstarted', "
                     "'completed', now() AT TIME ZONE 'utc')"),
                {"org": org.org_id, "task": task_id},
            )  # fmt: skip
            conn.execute(
                text("UPDATE tasks SET state_id = :s, state_category = 'completed', "
                     "completed_at = now() AT TIME ZONE 'utc' WHERE id = :t"),
                {"s": done, "t": task_id},
            )  # fmt: skip
        first.commit()
        second.commit()
    finally:
        first.close()
        second.close()
    with app.app_context():
        slots = db.session.scalar(
            select(func.count(func.distinct(task_done_counts.c.slot))).where(
                task_done_counts.c.org_id == org.org_id
            )
        )
        assert slots == 2  # one per writer, neither waited for the other
        assert consistency.verify(org.org_id).ok
        slot_fold.fold()
        db.session.commit()
        for table in (task_done_counts, task_flow_days):
            assert set(
                db.session.scalars(select(table.c.slot).where(table.c.org_id == org.org_id))
            ) == {0}
        assert consistency.verify(org.org_id).ok
        total = db.session.scalar(
            select(func.sum(task_done_counts.c.n)).where(task_done_counts.c.org_id == org.org_id)
        )
        assert total == 2
        assert db.session.scalar(select(func.count()).where(Task.org_id == org.org_id)) == 6
