"""A request that loses a deadlock is run again whole, and one that keeps losing answers
503 with nothing saved (workspace/transaction.py)."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select

from tests.factories import lose_a_deadlock, make_org, new_task, setup_project
from workspace.core import tasks as task_service
from workspace.core.models import Task, TaskActivity
from workspace.extensions import db


@pytest.fixture
def losing_updates(monkeypatch):
    """``update_task`` writes, then loses a deadlock the first ``losses`` times."""
    state = {"losses": 0, "calls": 0}
    original = task_service.update_task

    def update_task(*args, **kwargs):
        state["calls"] += 1
        written = original(*args, **kwargs)  # flushed: the first attempt really wrote
        if state["calls"] <= state["losses"]:
            lose_a_deadlock()
        return written

    monkeypatch.setattr(task_service, "update_task", update_task)
    return state


def _priority_history(app, task_id: str) -> tuple[str, int]:
    with app.app_context():
        task = db.session.get(Task, uuid.UUID(task_id))
        changes = db.session.scalar(
            select(func.count()).where(
                TaskActivity.task_id == task.id, TaskActivity.field == "priority"
            )
        )
        return task.priority, changes


def _raise_priority(app, client, losing_updates, losses: int):
    """A low-priority task, then a PATCH to high whose writes lose ``losses`` times."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    task = new_task(client, org, project, priority="low")
    losing_updates["losses"] = losses
    resp = client.patch(
        org.url(f"/tasks/{task['id']}"), json={"priority": "high"}, headers=org.headers
    )
    return task, resp


def test_a_request_that_loses_a_deadlock_runs_again_and_saves_once(app, client, losing_updates):
    task, resp = _raise_priority(app, client, losing_updates, losses=1)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["priority"] == "high"
    assert losing_updates["calls"] == 2
    # The lost attempt's change and history row were rolled back: one change recorded.
    assert _priority_history(app, task["id"]) == ("high", 1)


def test_a_request_that_keeps_losing_answers_503_and_saves_nothing(app, client, losing_updates):
    task, resp = _raise_priority(app, client, losing_updates, losses=99)
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == "1"
    assert "nothing was saved" in resp.get_json()["detail"]
    assert losing_updates["calls"] == 3
    assert _priority_history(app, task["id"]) == ("low", 0)
