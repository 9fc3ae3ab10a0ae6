"""Forecast's rollup of completions per hour (migration 0009) follows every task in and
out of the count, survives hard deletes, and answers weeks that start inside an hour."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, select, update

from tests.factories import (
    get_json,
    make_org,
    new_task,
    rollups_consistent,
    setup_project,
    state_in,
)
from workspace.analytics import task_counts
from workspace.core.models import Org, Task, TaskActivity
from workspace.extensions import db


def _held(app, org_id: uuid.UUID) -> int:
    """Completions the rollup holds for the org, whatever the hour."""
    with app.app_context():
        table = task_counts.task_done_counts
        held = select(func.coalesce(func.sum(table.c.n), 0)).where(table.c.org_id == org_id)
        return int(db.session.scalar(held))


def test_completions_follow_their_task_in_and_out_of_the_count(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done, started = state_in(states, "completed"), state_in(states, "started")
    tasks = [new_task(client, org, project, title=f"T{i}")["id"] for i in range(4)]

    def patch(task_id: str, **body) -> None:
        resp = client.patch(org.url(f"/tasks/{task_id}"), json=body, headers=org.headers)
        assert resp.status_code == 200, resp.get_json()

    for task_id in tasks:
        patch(task_id, state_id=done)
    assert _held(app, org.org_id) == 4
    # Reopened and done again: two completions; done to done is none.
    patch(tasks[0], state_id=started)
    patch(tasks[0], state_id=done)
    assert _held(app, org.org_id) == 5
    # Archived: all of its completions leave; restored: they come back.
    patch(tasks[0], archived=True)
    assert _held(app, org.org_id) == 3
    patch(tasks[0], archived=False)
    assert _held(app, org.org_id) == 5
    # Deleted (soft, through the API) and deleted for good (as a purge would).
    assert client.delete(org.url(f"/tasks/{tasks[1]}"), headers=org.headers).status_code == 204
    assert _held(app, org.org_id) == 4
    with app.app_context():
        db.session.execute(delete(Task).where(Task.id == uuid.UUID(tasks[2])))
        db.session.commit()
    assert _held(app, org.org_id) == 3
    assert rollups_consistent(app)


def test_history_rewritten_or_purged_moves_its_completions(app, client):
    """An import that backdates completions, or a purge of old history, is followed
    too: forecast counts the completion in the week it now says it happened."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = state_in(states, "completed")
    for i in range(3):
        task = new_task(client, org, project, title=f"T{i}")
        resp = client.patch(
            org.url(f"/tasks/{task['id']}"), json={"state_id": done}, headers=org.headers
        )
        assert resp.status_code == 200
    last_week = datetime.now(UTC) - timedelta(days=7)
    completed = (TaskActivity.field == "state") & (TaskActivity.new_category == "completed")
    with app.app_context():
        db.session.execute(update(TaskActivity).where(completed).values(created_at=last_week))
        db.session.commit()
    assert get_json(client, org, "/analytics/forecast", weeks=2)["series"][-1]["completed"] == 3
    assert rollups_consistent(app)
    with app.app_context():
        first = db.session.scalar(select(TaskActivity.id).where(completed).limit(1))
        db.session.execute(delete(TaskActivity).where(TaskActivity.id == first))
        db.session.commit()
    assert get_json(client, org, "/analytics/forecast", weeks=2)["series"][-1]["completed"] == 2
    assert _held(app, org.org_id) == 2
    assert rollups_consistent(app)


def test_forecast_weeks_start_inside_an_hour_in_a_quarter_hour_zone(app, client):
    """Nepal is UTC+5:45: its Monday starts at 18:15 UTC on Sunday. A completion at
    18:10 belongs to the week before, one at 18:20 to the week after, though both fall
    in the same UTC hour of the rollup."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    task = new_task(client, org, project, state_id=state_in(states, "completed"))
    zone = ZoneInfo("Asia/Kathmandu")
    with app.app_context():
        db.session.get(Org, org.org_id).timezone = zone.key
        db.session.commit()
    today = datetime.now(UTC).astimezone(zone).date()
    this_monday = today - timedelta(days=today.weekday())
    boundary = datetime.combine(this_monday - timedelta(weeks=1), time(), zone).astimezone(UTC)
    assert boundary.minute == 15

    before = get_json(client, org, "/analytics/forecast", weeks=2)["series"]
    with app.app_context():
        for offset in (-5, 5):
            db.session.add(
                TaskActivity(
                    org_id=org.org_id,
                    task_id=uuid.UUID(task["id"]),
                    field="state",
                    old_value="In Progress",
                    new_value="Done",
                    old_category="started",
                    new_category="completed",
                    created_at=boundary + timedelta(minutes=offset),
                )
            )
        db.session.commit()
    after = get_json(client, org, "/analytics/forecast", weeks=2)["series"]
    assert [a["completed"] - b["completed"] for a, b in zip(after, before, strict=True)] == [1, 1]
    assert rollups_consistent(app)
