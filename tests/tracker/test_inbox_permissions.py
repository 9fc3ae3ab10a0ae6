"""Every route of My work and the inbox, by caller: a project member, a project viewer
and an agent may use each one for themselves (the inbox is always the caller's own);
another org's member gets a 404 and learns nothing (docs/inbox.md#permissions)."""

from __future__ import annotations

import pytest

from tests.factories import (
    assert_problem,
    bearer,
    create_agent,
    login,
    make_org,
    new_task,
    project_roles,
    setup_project,
)

#: (name, method, JSON API path, body)
API = [
    ("read inbox", "GET", "/inbox", None),
    ("mark read", "POST", "/inbox/{n}/read", {"read": True}),
    ("mark all read", "POST", "/inbox/read-all", None),
    ("people to mention", "GET", "/mentions/people?q=a", None),
    ("read subscription", "GET", "/tasks/{t}/subscription", None),
    ("subscribe", "PUT", "/tasks/{t}/subscription", {"subscribed": True}),
]
#: (name, method, page path under /o/<org>, form)
PAGES = [
    ("inbox page", "GET", "/inbox", None),
    ("inbox page mark read", "POST", "/inbox/{n}/read", {"read": "true"}),
    ("inbox page mark all read", "POST", "/inbox/read-all", {}),
    ("my work page", "GET", "/my-work?section=subscribed", None),
    ("subscribe button", "POST", "/tasks/WEB-{seq}/subscription", {"subscribed": "false"}),
]


@pytest.fixture
def world(client, acme, app):
    """Acme's project; a member, a viewer and an agent, each with a task assigned to
    them (so a notification of their own); Globex's owner as the outsider."""
    project, _ = setup_project(client, acme)
    people = project_roles(client, app, acme, project)
    callers = {role: (person.owner_id, person.headers) for role, person in people.items()}
    agent = create_agent(client, acme, project_ids=[project["id"]])
    callers["agent"] = (agent["id"], bearer(agent["token"]))
    ids = {}
    for name, (account_id, headers) in callers.items():
        task = new_task(client, acme, project, title=name, assignee_id=str(account_id))
        inbox = client.get(acme.url("/inbox"), headers=headers).get_json()
        ids[name] = {"t": task["id"], "n": inbox["items"][0]["id"], "seq": task["sequence"]}
    outsider = make_org(app, "Globex", "owner@globex.test")
    return acme, project, callers, ids, outsider


def test_api_routes_serve_every_member_their_own_and_are_404_to_another_org(client, world):
    # One world for every route and caller (built once: it is the slow part).
    acme, _, callers, ids, outsider = world
    for name, method, path, body in API:
        for caller, (_, headers) in callers.items():
            url = acme.url(path.format(**ids[caller]))
            resp = client.open(url, method=method, json=body, headers=headers)
            assert resp.status_code == 200, (name, caller, resp.get_data(as_text=True))
        url = acme.url(path.format(**ids["member"]))
        assert_problem(client.open(url, method=method, json=body, headers=outsider.headers), 404)
    # Nobody reads or marks anyone else's notification.
    for caller in ("viewer", "agent"):
        url = acme.url(f"/inbox/{ids['member']['n']}/read")
        assert_problem(client.post(url, headers=callers[caller][1]), 404)
    listed = client.get(acme.url("/inbox"), headers=callers["member"][1]).get_json()
    assert [n["task_title"] for n in listed["items"]] == ["member"]


def test_pages_by_caller(client, world, app):
    acme, _, callers, ids, outsider = world
    base = f"/o/{acme.slug}"
    for who in ("member", "viewer"):
        login(client, f"{who}@acme.test")
        for name, method, path, form in PAGES:
            resp = client.open(base + path.format(**ids[who]), method=method, data=form)
            assert resp.status_code in (200, 303), (name, who, resp.status_code)
        client.post("/signout")
    login(client, outsider.owner_email)
    for name, method, path, form in PAGES:
        resp = client.open(base + path.format(**ids["member"]), method=method, data=form)
        assert resp.status_code == 404, (name, resp.status_code)
    # An agent's token opens no page: it is sent to sign in (docs/tasks.md).
    fresh = app.test_client()
    for name, method, path, form in PAGES:
        url = base + path.format(**ids["agent"])
        resp = fresh.open(url, method=method, data=form, headers=callers["agent"][1])
        assert resp.status_code in (302, 303), (name, resp.status_code)
        assert "/signin" in resp.headers["Location"]
