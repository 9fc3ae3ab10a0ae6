"""Deleted tasks come back (docs/tasks.md#archive-and-delete): the delete's flash has
Undo, the project's Deleted tasks page lists them with who deleted each and Restore,
and the JSON API lists and restores them. A restored task has its key, fields and
history again and counts in lists and analytics; only a project writer restores, and
nothing outside the project can be named."""

from __future__ import annotations

import re
import uuid
from datetime import datetime

import pytest

from tests.factories import (
    add_person,
    create_project,
    get_json,
    login,
    make_org,
    new_task,
    rollups_consistent,
    setup_project,
)


@pytest.fixture
def world(client, acme):
    project, _ = setup_project(client, acme)
    kept = new_task(client, acme, project, title="Keep me")
    task = new_task(client, acme, project, title="Fix login", priority="high")
    login(client, acme.owner_email)
    return {"project": project, "task": task, "kept": kept}


def _deleted_url(org, project, tail=""):
    return f"/o/{org.slug}/projects/{project['id']}/deleted-tasks{tail}"


def _overview_total(client, org) -> int:
    return get_json(client, org, "/analytics/overview")["total"]


def test_undo_in_the_flash_brings_a_deleted_task_back_as_it_was(app, client, acme, world):
    task, project = world["task"], world["project"]
    page = f"/o/{acme.slug}/tasks/{task['key']}"
    before = _overview_total(client, acme)
    landing = client.post(page + "/delete", follow_redirects=True).get_data(as_text=True)
    assert f"{task['key']} “Fix login” was deleted." in landing
    assert _overview_total(client, acme) == before - 1
    undo = re.search(r'<form method="post" action="([^"]+)" class="flash-action">', landing)
    assert undo and undo.group(1) == _deleted_url(acme, project, f"/{task['id']}/restore")
    assert ">Undo</button>" in landing
    back = client.post(undo.group(1))
    assert back.status_code == 303 and back.headers["Location"].endswith(page)
    shown = client.get(page).get_data(as_text=True)
    assert f"{task['key']} “Fix login” was restored." in shown
    assert "restored the deleted task" in shown
    restored = get_json(client, acme, f"/tasks/{task['id']}")
    assert (restored["key"], restored["priority"]) == (task["key"], "high")
    updated = (datetime.fromisoformat(t["updated_at"]) for t in (restored, task))
    assert next(updated) > next(updated)  # a restore is an update
    fields = [a["field"] for a in get_json(client, acme, f"/tasks/{task['id']}/activity")]
    assert fields[-2:] == ["deleted", "restored"]
    listed = get_json(client, acme, f"/projects/{project['id']}/tasks")
    assert task["id"] in [t["id"] for t in listed["items"]]
    assert _overview_total(client, acme) == before
    assert rollups_consistent(app)


def test_the_deleted_tasks_page_lists_who_deleted_and_restores(client, acme, world):
    task, project = world["task"], world["project"]
    listing = client.get(f"/o/{acme.slug}/projects/{project['id']}").get_data(as_text=True)
    assert f'href="{_deleted_url(acme, project)}"' in listing
    empty = client.get(_deleted_url(acme, project)).get_data(as_text=True)
    assert "No deleted tasks" in empty
    client.post(f"/o/{acme.slug}/tasks/{task['key']}/delete")
    html = client.get(_deleted_url(acme, project)).get_data(as_text=True)
    assert task["key"] in html and "Fix login" in html and "Keep me" not in html
    assert re.search(r"by (Acme Owner|owner@acme\.test)", html)
    assert f'Restore<span class="visually-hidden"> {task["key"]}</span>' in html
    # The list's Restore comes back to the list, to restore the next.
    assert 'name="back" value="list"' in html
    resp = client.post(_deleted_url(acme, project, f"/{task['id']}/restore"), data={"back": "list"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(
        _deleted_url(acme, project)
    )
    back = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "No deleted tasks" in back and f"{task['key']} “Fix login” was restored." in back
    # A second Undo (or a teammate first): said so, on the task, not a bare 404.
    again = client.post(_deleted_url(acme, project, f"/{task['id']}/restore"),
                        follow_redirects=True)  # fmt: skip
    assert again.status_code == 200
    assert "is not deleted: it was restored already." in again.get_data(as_text=True)
    activity = get_json(client, acme, f"/tasks/{task['id']}/activity")
    assert [a["field"] for a in activity].count("restored") == 1


def test_only_a_project_writer_restores_and_nothing_outside_the_project(app, client, acme,
                                                                      world):  # fmt: skip
    task, project = world["task"], world["project"]
    other = create_project(client, acme, name="Other", identifier="OTH")
    resp = client.delete(acme.url(f"/tasks/{task['id']}"), headers=acme.headers)
    assert resp.status_code == 204
    listed = get_json(client, acme, f"/projects/{project['id']}/deleted-tasks")
    assert [(t["key"], t["deleted_by_id"]) for t in listed] == [(task["key"], str(acme.owner_id))]
    assert listed[0]["deleted_at"]
    restore = acme.url(f"/projects/{project['id']}/deleted-tasks/{task['id']}/restore")
    # A viewer reads the list but does not restore; the page shows no Restore button.
    viewer = add_person(app, acme.org_id, "vic@acme.test")
    client.post(acme.url(f"/projects/{project['id']}/members"), headers=acme.headers,
                json={"account_id": str(viewer.owner_id), "role": "viewer"})  # fmt: skip
    assert client.post(restore, headers=viewer.headers).status_code == 403
    login(client, viewer.owner_email)
    html = client.get(_deleted_url(acme, project)).get_data(as_text=True)
    assert "Fix login" in html and "/restore" not in html
    assert client.post(_deleted_url(acme, project, f"/{task['id']}/restore")).status_code == 403
    # Another project, another org, an unknown id: 404.
    wrong = acme.url(f"/projects/{other['id']}/deleted-tasks/{task['id']}/restore")
    assert client.post(wrong, headers=acme.headers).status_code == 404
    unknown = acme.url(f"/projects/{project['id']}/deleted-tasks/{uuid.uuid4()}/restore")
    assert client.post(unknown, headers=acme.headers).status_code == 404
    globex = make_org(app, "Globex", "owner@globex.test")
    foreign = globex.url(f"/projects/{project['id']}/deleted-tasks/{task['id']}/restore")
    assert client.post(foreign, headers=globex.headers).status_code == 404
    assert client.get(globex.url(f"/projects/{project['id']}/deleted-tasks"),
                      headers=globex.headers).status_code == 404  # fmt: skip
    # The writer restores through the API: the task as it is now; again, the same.
    answer = client.post(restore, headers=acme.headers)
    assert answer.status_code == 200 and answer.get_json()["key"] == task["key"]
    assert client.post(restore, headers=acme.headers).get_json() == answer.get_json()
    assert get_json(client, acme, f"/projects/{project['id']}/deleted-tasks") == []


def test_a_deleted_tasks_page_says_so_and_offers_restore(app, client, acme, world):
    """A bookmark or an old inbox link to a deleted task read a bare 404."""
    task, project = world["task"], world["project"]
    page = f"/o/{acme.slug}/tasks/{task['key']}"
    client.post(page + "/delete")
    gone = client.get(page)
    html = gone.get_data(as_text=True)
    assert gone.status_code == 404 and f"{task['key']} was deleted" in html
    assert "“Fix login” was deleted on" in html
    restore = _deleted_url(acme, project, f"/{task['id']}/restore")
    assert f'action="{restore}"' in html
    # A viewer is told, without the button; another org's member learns nothing.
    viewer = add_person(app, acme.org_id, "vic@acme.test")
    client.post(acme.url(f"/projects/{project['id']}/members"), headers=acme.headers,
                json={"account_id": str(viewer.owner_id), "role": "viewer"})  # fmt: skip
    login(client, viewer.owner_email)
    html = client.get(page).get_data(as_text=True)
    assert "was deleted" in html and restore not in html
    stranger = make_org(app, "Globex", "owner@globex.test")
    login(client, stranger.owner_email)
    foreign = client.get(page)
    assert foreign.status_code == 404 and "Fix login" not in foreign.get_data(as_text=True)
    login(client, acme.owner_email)
    missing = client.get(f"/o/{acme.slug}/tasks/{task['key']}9")
    assert missing.status_code == 404 and "No such task" in missing.get_data(as_text=True)
