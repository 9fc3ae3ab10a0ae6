"""Workload's rollup of completed tasks per UTC day and assignee (migration 0011)
follows every task in and out, and workload's 30-day window stays exact to the second
though the rollup only knows days."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, update

from tests.factories import (
    add_person,
    make_org,
    new_task,
    rollups_consistent,
    setup_project,
    state_in,
)
from workspace.analytics import rollups, task_counts
from workspace.analytics.scope import make_scope
from workspace.core.models import Org, Task
from workspace.extensions import db


def _held(app, org_id: uuid.UUID) -> dict[uuid.UUID, int]:
    """What the rollup holds for the org, per assignee, whatever the day and slot."""
    with app.app_context():
        table = task_counts.task_completed_days
        rows = db.session.execute(
            select(table.c.assignee_id, func.sum(table.c.n))
            .where(table.c.org_id == org_id)
            .group_by(table.c.assignee_id)
            .having(func.sum(table.c.n) != 0)  # a slot emptied on PostgreSQL (0038)
        )
        return {assignee: int(n) for assignee, n in rows}


def test_completed_tasks_follow_their_task_in_and_out(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    bob = add_person(app, org.org_id, "bob@acme.test")
    project, states = setup_project(client, org)
    done, started = state_in(states, "completed"), state_in(states, "started")
    owner = str(org.owner_id)
    tasks = [
        new_task(client, org, project, title=f"T{i}", assignee_id=owner)["id"] for i in range(4)
    ]
    unassigned = new_task(client, org, project, title="Nobody's")["id"]

    def patch(task_id: str, **body) -> None:
        resp = client.patch(org.url(f"/tasks/{task_id}"), json=body, headers=org.headers)
        assert resp.status_code == 200, resp.get_json()

    assert _held(app, org.org_id) == {}
    for task_id in [*tasks, unassigned]:
        patch(task_id, state_id=done)
    # Unassigned completions are not workload's, and not kept.
    assert _held(app, org.org_id) == {org.owner_id: 4}
    patch(tasks[0], assignee_id=str(bob.owner_id))
    assert _held(app, org.org_id) == {org.owner_id: 3, bob.owner_id: 1}
    patch(tasks[0], assignee_id=None)
    assert _held(app, org.org_id) == {org.owner_id: 3}
    patch(tasks[1], state_id=started)
    assert _held(app, org.org_id) == {org.owner_id: 2}
    patch(tasks[1], state_id=done)
    patch(tasks[2], archived=True)
    assert _held(app, org.org_id) == {org.owner_id: 2}
    patch(tasks[2], archived=False)
    assert _held(app, org.org_id) == {org.owner_id: 3}
    assert client.delete(org.url(f"/tasks/{tasks[3]}"), headers=org.headers).status_code == 204
    with app.app_context():
        db.session.execute(delete(Task).where(Task.id == uuid.UUID(tasks[1])))
        db.session.commit()
    assert _held(app, org.org_id) == {org.owner_id: 1}
    assert rollups_consistent(app)


def test_workload_window_is_exact_at_its_part_day(app, client):
    """Thirty days before 10:00 UTC is 10:00 UTC on a day the rollup holds whole: a
    completion at 09:59 that day is outside the window, one at 10:01 inside, and one at
    the next midnight (the rollup's first whole day) counts once."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = state_in(states, "completed")
    now = datetime(2026, 6, 15, 10, 0, tzinfo=UTC)
    completed_at = [
        datetime(2026, 5, 10, 12, 0, tzinfo=UTC),  # out: weeks before
        datetime(2026, 5, 16, 9, 59, tzinfo=UTC),  # out: the window starts at 10:00
        datetime(2026, 5, 16, 10, 1, tzinfo=UTC),  # in: the part-day, from the index
        datetime(2026, 5, 17, 0, 0, tzinfo=UTC),  # in: the first whole day, from the rollup
        datetime(2026, 6, 1, 12, 0, tzinfo=UTC),  # in
    ]
    for i, at in enumerate(completed_at):
        task = new_task(
            client, org, project, title=f"T{i}", state_id=done, assignee_id=str(org.owner_id)
        )
        with app.app_context():
            db.session.execute(
                update(Task).where(Task.id == uuid.UUID(task["id"])).values(completed_at=at)
            )
            db.session.commit()
    with app.app_context():
        org_row = db.session.get(Org, org.org_id)
        whole_org = rollups.workload(make_scope(org_row, now=now))
        one_project = rollups.workload(make_scope(org_row, uuid.UUID(project["id"]), now=now))
        db.session.rollback()
    # The whole org reads the rollup plus the part-day; one project reads the index.
    assert [r["completed_30d"] for r in whole_org] == [3]
    assert [r["completed_30d"] for r in one_project] == [3]
    assert rollups_consistent(app)
