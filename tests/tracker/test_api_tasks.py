"""Tasks through the API: create, change, history, soft delete, listing."""

from __future__ import annotations

import uuid

from tests.factories import add_person, assert_problem, new_task, setup_project


def test_create_defaults_to_backlog_and_numbers_tasks(client, acme):
    project, _ = setup_project(client, acme)
    first = new_task(client, acme, project)
    second = new_task(client, acme, project, priority="high", kind="bug")
    assert first["key"] == "WEB-1" and second["key"] == "WEB-2"
    assert first["state_name"] == "Backlog" and first["state_category"] == "backlog"
    assert (second["priority"], second["kind"]) == ("high", "bug")


def test_state_change_writes_one_activity_row_with_categories(client, acme):
    project, states = setup_project(client, acme)
    task = new_task(client, acme, project)
    url = acme.url(f"/tasks/{task['id']}")
    resp = client.patch(url, json={"state_id": states["In Progress"]["id"]}, headers=acme.headers)
    assert resp.status_code == 200
    assert resp.get_json()["state_category"] == "started"
    assert resp.get_json()["state_name"] == "In Progress"  # the answer names the new state
    history = client.get(url + "/activity", headers=acme.headers).get_json()
    state_rows = [h for h in history if h["field"] == "state"]
    assert len(state_rows) == 1
    row = state_rows[0]
    assert (row["old_value"], row["new_value"]) == ("Backlog", "In Progress")
    assert (row["old_category"], row["new_category"]) == ("backlog", "started")
    assert row["actor_id"] == str(acme.owner_id)

    done = client.patch(
        url, json={"state_id": states["Done"]["id"]}, headers=acme.headers
    ).get_json()
    assert done["completed_at"] is not None
    reopened = client.patch(
        url, json={"state_id": states["Todo"]["id"]}, headers=acme.headers
    ).get_json()
    assert reopened["completed_at"] is None


def test_unchanged_fields_write_no_activity(client, acme):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, priority="low")
    url = acme.url(f"/tasks/{task['id']}")
    client.patch(url, json={"priority": "low", "title": "Fix login"}, headers=acme.headers)
    history = client.get(url + "/activity", headers=acme.headers).get_json()
    assert [h["field"] for h in history] == ["created"]
    client.patch(url, json={"priority": "urgent", "due_date": "2026-12-01"}, headers=acme.headers)
    history = client.get(url + "/activity", headers=acme.headers).get_json()
    assert sorted(h["field"] for h in history) == ["created", "due_date", "priority"]


def test_patch_validation(client, acme, globex):
    project, _ = setup_project(client, acme)
    _, other_states = setup_project(client, globex)
    task = new_task(client, acme, project)
    url = acme.url(f"/tasks/{task['id']}")
    assert_problem(
        client.patch(url, json={"priority": "whenever"}, headers=acme.headers),
        400,
        field="priority",
    )
    assert_problem(
        client.patch(url, json={"title": None}, headers=acme.headers), 400, field="title"
    )
    assert_problem(
        client.patch(url, json={"state_id": other_states["Done"]["id"]}, headers=acme.headers),
        422,
        field="state_id",
    )
    assert_problem(
        client.patch(url, json={"assignee_id": str(globex.owner_id)}, headers=acme.headers),
        422,
        field="assignee_id",
    )
    assert_problem(
        client.patch(url, json={"due_date": "tomorrow"}, headers=acme.headers),
        400,
        field="due_date",
    )
    assert_problem(
        client.patch(url, json={"state": "Done"}, headers=acme.headers), 400, field="state"
    )
    # A date far outside any plan is a slip of typing: refused, and nothing written.
    for far in ("0002-01-20", "9999-12-31"):
        resp = client.patch(url, json={"due_date": far}, headers=acme.headers)
        assert_problem(resp, 422, field="due_date")
        assert "from 1 Jan 1900 to 31 Dec 2999" in resp.get_json()["detail"]
    for edge in ("1900-01-01", "2999-12-31"):
        resp = client.patch(url, json={"due_date": edge}, headers=acme.headers)
        assert resp.status_code == 200 and resp.get_json()["due_date"] == edge
    cycles = acme.url(f"/projects/{project['id']}/cycles")
    far_cycle = {"name": "Forever", "start_date": "0001-01-01", "end_date": "2026-01-01"}
    assert_problem(client.post(cycles, json=far_cycle, headers=acme.headers), 422, "start_date")


def test_assign_to_member_and_clear(client, acme):
    project, _ = setup_project(client, acme)
    mia = add_person(client.application, acme.org_id, "mia@acme.test")
    task = new_task(client, acme, project, assignee_id=str(mia.owner_id))
    assert task["assignee_id"] == str(mia.owner_id)
    url = acme.url(f"/tasks/{task['id']}")
    cleared = client.patch(url, json={"assignee_id": None}, headers=acme.headers).get_json()
    assert cleared["assignee_id"] is None


def test_soft_delete_hides_task_but_keeps_history(client, acme, app):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project)
    url = acme.url(f"/tasks/{task['id']}")
    assert client.delete(url, headers=acme.headers).status_code == 204
    assert_problem(client.get(url, headers=acme.headers), 404)
    listing = client.get(
        acme.url(f"/projects/{project['id']}/tasks"), headers=acme.headers
    ).get_json()
    assert listing["total"] == 0
    with app.app_context():
        from workspace.core.models import TaskActivity
        from workspace.extensions import db

        fields = db.session.scalars(
            db.select(TaskActivity.field).where(TaskActivity.task_id == uuid.UUID(task["id"]))
        ).all()
    assert sorted(fields) == ["created", "deleted"]


def test_listing_filters_and_pages(client, acme):
    project, _ = setup_project(client, acme)
    for i in range(7):
        new_task(client, acme, project, title=f"Task {i}", priority="urgent" if i % 2 else "low")
    base = acme.url(f"/projects/{project['id']}/tasks")
    page = client.get(base + "?limit=3&offset=0", headers=acme.headers).get_json()
    assert page["total"] == 7 and len(page["items"]) == 3
    rest = client.get(base + "?limit=3&offset=6", headers=acme.headers).get_json()
    assert len(rest["items"]) == 1
    urgent = client.get(base + "?priority=urgent", headers=acme.headers).get_json()
    assert urgent["total"] == 3
    assert_problem(client.get(base + "?limit=0", headers=acme.headers), 400, field="limit")
    assert_problem(client.get(base + "?priority=meh", headers=acme.headers), 400, field="priority")


def test_viewer_cannot_change_tasks_commenter_can_comment(client, acme):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project)
    members_url = acme.url(f"/projects/{project['id']}/members")
    viewer = add_person(client.application, acme.org_id, "vic@acme.test")
    commenter = add_person(client.application, acme.org_id, "cora@acme.test")
    client.post(
        members_url,
        json={"account_id": str(viewer.owner_id), "role": "viewer"},
        headers=acme.headers,
    )
    client.post(
        members_url,
        json={"account_id": str(commenter.owner_id), "role": "commenter"},
        headers=acme.headers,
    )
    url = acme.url(f"/tasks/{task['id']}")
    assert client.get(url, headers=viewer.headers).status_code == 200
    assert_problem(client.patch(url, json={"title": "x"}, headers=viewer.headers), 403)
    assert_problem(client.post(url + "/comments", json={"body": "hi"}, headers=viewer.headers), 403)
    assert_problem(client.patch(url, json={"title": "x"}, headers=commenter.headers), 403)
    resp = client.post(url + "/comments", json={"body": "Looks good"}, headers=commenter.headers)
    assert resp.status_code == 201
    comments = client.get(url + "/comments", headers=viewer.headers).get_json()
    assert [c["body"] for c in comments] == ["Looks good"]


def test_archived_project_refuses_new_tasks(client, acme):
    project, _ = setup_project(client, acme)
    client.patch(
        acme.url(f"/projects/{project['id']}"), json={"archived": True}, headers=acme.headers
    )
    resp = client.post(
        acme.url(f"/projects/{project['id']}/tasks"), json={"title": "Late"}, headers=acme.headers
    )
    assert_problem(resp, 422)
    assert "archived" in resp.get_json()["detail"]
