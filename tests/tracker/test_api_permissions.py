"""The core write routes by project role: what a viewer, a member and a project
admin may do (403 with problem+json below the line), plus the 409 and 400 cases of
cycles, modules and tasks."""

from __future__ import annotations

import pytest

from tests.factories import add_person, assert_problem, new_task, setup_project

#: (name, method, path template, body, lowest project role allowed)
WRITES = [
    ("rename project", "PATCH", "/projects/{p}", {"name": "Mine"}, "admin"),
    ("delete project", "DELETE", "/projects/{p}", None, "admin"),
    ("add project member", "POST", "/projects/{p}/members", {"account_id": "{a}"}, "admin"),
    ("remove project member", "DELETE", "/projects/{p}/members/{m}", None, "admin"),
    ("add state", "POST", "/projects/{p}/states", {"name": "QA", "category": "started"}, "admin"),
    ("add cycle", "POST", "/projects/{p}/cycles", {"name": "Sprint 2"}, "admin"),
    ("add module", "POST", "/projects/{p}/modules", {"name": "Billing"}, "admin"),
    ("create task", "POST", "/projects/{p}/tasks", {"title": "New"}, "member"),
    ("edit task", "PATCH", "/tasks/{t}", {"title": "Renamed"}, "member"),
    ("delete task", "DELETE", "/tasks/{t}", None, "member"),
    ("comment", "POST", "/tasks/{t}/comments", {"body": "Hi"}, "commenter"),
]
RANKS = ["viewer", "commenter", "member", "admin"]


def _fill(value, ids):
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


@pytest.mark.parametrize("role", RANKS)
@pytest.mark.parametrize(
    ("name", "method", "path", "body", "lowest"), WRITES, ids=[w[0] for w in WRITES]
)
def test_core_writes_by_project_role(client, acme, role, name, method, path, body, lowest):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project)
    members_url = acme.url(f"/projects/{project['id']}/members")
    caller = add_person(client.application, acme.org_id, "caller@acme.test")
    other = add_person(client.application, acme.org_id, "other@acme.test")
    for person, person_role in ((caller, role), (other, "member")):
        resp = client.post(
            members_url,
            json={"account_id": str(person.owner_id), "role": person_role},
            headers=acme.headers,
        )
        assert resp.status_code == 201
    other_member = next(
        m["id"]
        for m in client.get(members_url, headers=acme.headers).get_json()
        if m["account"]["email"] == "other@acme.test"
    )
    ids = {"p": project["id"], "t": task["id"], "m": other_member, "a": str(other.owner_id)}
    if name == "add project member":
        # Someone not yet in the project, so an allowed call succeeds.
        ids["a"] = str(add_person(client.application, acme.org_id, "new@acme.test").owner_id)
    resp = client.open(
        acme.url(_fill(path, ids)), method=method, json=_fill(body, ids), headers=caller.headers
    )
    if RANKS.index(role) >= RANKS.index(lowest):
        assert resp.status_code in (200, 201, 204), (name, role, resp.get_data(as_text=True))
    else:
        assert_problem(resp, 403)


def test_duplicate_cycle_and_module_names_are_409(client, acme):
    project, _ = setup_project(client, acme)
    base = acme.url(f"/projects/{project['id']}")
    for kind in ("cycles", "modules"):
        assert (
            client.post(f"{base}/{kind}", json={"name": "Q1"}, headers=acme.headers).status_code
            == 201
        )
        assert_problem(
            client.post(f"{base}/{kind}", json={"name": "q1"}, headers=acme.headers), 409, "name"
        )


@pytest.mark.parametrize(
    ("kind", "body", "field"),
    [
        ("modules", {}, "name"),
        ("modules", {"name": ""}, "name"),
        ("modules", {"name": "x" * 300}, "name"),
        ("modules", {"name": 7}, "name"),
        ("tasks", {}, "title"),
        ("tasks", {"title": ""}, "title"),
        ("tasks", {"title": "T", "priority": "asap"}, "priority"),
        ("tasks", {"title": "T", "kind": "chore"}, "kind"),
        ("tasks", {"title": "T", "due_date": "tomorrow"}, "due_date"),
        ("tasks", {"title": "T", "assignee_id": "me"}, "assignee_id"),
        ("tasks", {"title": "T", "color": "red"}, "color"),
    ],
)
def test_bad_module_and_task_bodies_are_400_naming_the_field(client, acme, kind, body, field):
    project, _ = setup_project(client, acme)
    url = acme.url(f"/projects/{project['id']}/{kind}")
    assert_problem(client.post(url, json=body, headers=acme.headers), 400, field)
    listed = client.get(url, headers=acme.headers).get_json()
    assert (listed["items"] if isinstance(listed, dict) else listed) == []  # nothing written
