"""The demo seed and the command-line entry points, on both databases."""

from __future__ import annotations

import pytest
from sqlalchemy import distinct, func, select

from workspace.core.models import (
    Account,
    Org,
    OrgMember,
    Project,
    Task,
    TaskActivity,
)
from workspace.extensions import db


def test_demo_seed_covers_every_category_priority_kind_with_history(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["demo", "--tasks", "600", "--password", "demo-password-1"])
    assert result.exit_code == 0, result.output
    assert "owner@acme.test" in result.output and "demo-password-1" in result.output
    with app.app_context():
        org = db.session.scalar(select(Org).where(Org.slug == "acme"))
        assert str(org.id) in result.output
        q = select(Task).where(Task.org_id == org.id)
        assert db.session.scalar(select(func.count()).select_from(q.subquery())) == 600

        def distinct_values(column):
            return set(db.session.scalars(select(column).distinct().where(Task.org_id == org.id)))

        assert distinct_values(Task.state_category) >= {
            "backlog",
            "unstarted",
            "started",
            "completed",
            "cancelled",
            "triage",
        }
        assert distinct_values(Task.priority) == {"urgent", "high", "medium", "low", "none"}
        assert distinct_values(Task.kind) == {"task", "bug", "feature", "epic"}
        assert (
            db.session.scalar(
                select(func.count(distinct(Task.due_date))).where(Task.org_id == org.id)
            )
            > 30
        )
        agents = select(Account.id).where(Account.kind == "agent")
        assert (
            db.session.scalar(
                select(func.count()).where(Task.org_id == org.id, Task.assignee_id.in_(agents))
            )
            > 0
        )
        members = db.session.scalar(select(func.count()).where(OrgMember.org_id == org.id))
        assert members == 44  # owner, 40 people, 3 agents
        assert (
            db.session.scalar(
                select(func.count()).select_from(Project).where(Project.org_id == org.id)
            )
            == 3
        )
        # history spreads over ~120 days and covers moves into done
        oldest, newest = db.session.execute(
            select(func.min(TaskActivity.created_at), func.max(TaskActivity.created_at)).where(
                TaskActivity.org_id == org.id, TaskActivity.field == "state"
            )
        ).one()
        assert (newest - oldest).days >= 100
        done_moves = db.session.scalar(
            select(func.count()).where(
                TaskActivity.org_id == org.id,
                TaskActivity.field == "state",
                TaskActivity.new_category == "completed",
            )
        )
        assert done_moves > 100
        # every completed task has completed_at; no other task does
        assert (
            db.session.scalar(
                select(func.count()).where(
                    Task.org_id == org.id,
                    (Task.state_category == "completed") != Task.completed_at.is_not(None),
                )
            )
            == 0
        )


def test_demo_refuses_to_seed_twice_and_if_empty_just_prints(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["demo", "--tasks", "30"]).exit_code == 0
    again = runner.invoke(args=["demo", "--tasks", "30"])
    assert again.exit_code != 0 and "exists already" in again.output
    quiet = runner.invoke(args=["demo", "--if-empty"])
    assert quiet.exit_code == 0 and "/signin" in quiet.output


def test_demo_owner_can_sign_in(app, client):
    runner = app.test_cli_runner()
    runner.invoke(args=["demo", "--tasks", "30", "--password", "demo-password-1"])
    resp = client.post("/signin", data={"email": "owner@acme.test", "password": "demo-password-1"})
    assert resp.status_code == 302
    assert b"Web App" in client.get("/o/acme/projects").data


def test_orgs_create_and_tokens_create(app, client):
    runner = app.test_cli_runner()
    result = runner.invoke(
        args=[
            "orgs",
            "create",
            "Initech",
            "--owner",
            "bill@initech.test",
            "--password",
            "initech-pass-1",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "initech" in result.output
    dup = runner.invoke(args=["orgs", "create", "Initech", "--owner", "bill@initech.test"])
    assert dup.exit_code != 0 and "taken" in dup.output
    token = runner.invoke(args=["tokens", "create", "bill@initech.test", "--org", "initech"])
    assert token.exit_code == 0
    raw = token.output.strip()
    assert raw.startswith("ws_")
    with app.app_context():
        org_id = db.session.scalar(select(Org.id).where(Org.slug == "initech"))
    resp = client.get(f"/api/v1/orgs/{org_id}", headers={"Authorization": f"Bearer {raw}"})
    assert resp.status_code == 200 and resp.get_json()["name"] == "Initech"
    stranger = runner.invoke(args=["tokens", "create", "nobody@x.test", "--org", "initech"])
    assert stranger.exit_code != 0


def test_bench_data_generates_requested_rows(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["bench-data", "--tasks", "2000"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Task)) == 2000
        live = db.session.scalar(
            select(func.count()).where(Task.deleted_at.is_(None), Task.archived_at.is_(None))
        )
        assert 1800 < live < 2000


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["demo", "--password", "short"], "at least"),
        (["demo", "--tasks", "-5"], "-5"),
        (["orgs", "create", "X", "--owner", "notanemail"], "@"),
        (["orgs", "create", "X", "--owner", "x@x.test", "--password", "abc"], "at least"),
        (["bench-data", "--tasks", "-5"], "-5"),
        (["bench-data", "--tasks", "0"], "0"),
    ],
)
def test_bad_cli_input_is_a_message_not_a_traceback(app, args, says):
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and says in result.output
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Org)) == 0
