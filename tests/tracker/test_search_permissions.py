"""The search routes by caller (docs/search.md#who-sees-what): a project member, a
project viewer, a member of no project and an agent find the org's tasks (every member
reads every project of its org, docs/security.md#agents); another org's member gets a
404 and learns nothing; the anonymous get a 401 or the sign-in page."""

from __future__ import annotations

import pytest

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    login,
    make_org,
    new_task,
    project_roles,
    setup_project,
)


@pytest.fixture
def world(client, acme, app):
    project, _ = setup_project(client, acme)
    new_task(client, acme, project, title="Quarterly invoice export")
    people = project_roles(client, app, acme, project)
    callers = {role: person.headers for role, person in people.items()}
    callers["no project"] = add_person(app, acme.org_id, "plain@acme.test").headers
    callers["agent"] = bearer(create_agent(client, acme, project_ids=[project["id"]])["token"])
    outsider = make_org(app, "Globex", "owner@globex.test")
    return acme, callers, outsider


def test_api_finds_for_every_member_and_is_404_to_another_org(client, world):
    acme, callers, outsider = world
    url = acme.url("/search?q=invoice")
    for caller, headers in callers.items():
        resp = client.get(url, headers=headers)
        assert resp.status_code == 200, (caller, resp.get_data(as_text=True))
        assert [r["key"] for r in resp.get_json()["results"]] == ["WEB-1"], caller
    assert_problem(client.get(url, headers=outsider.headers), 404)
    assert_problem(client.get(url), 401)


def test_pages_by_caller(client, world, app):
    acme, callers, outsider = world
    url = f"/o/{acme.slug}/search?q=invoice"
    for who in ("member", "viewer", "plain"):
        login(client, f"{who}@acme.test")
        resp = client.get(url)
        assert resp.status_code == 200 and "WEB-1" in resp.get_data(as_text=True), who
        client.post("/signout")
    login(client, outsider.owner_email)
    assert client.get(url).status_code == 404
    fresh = app.test_client()
    for headers in ({}, callers["agent"]):  # an agent's token opens no page
        resp = fresh.get(url, headers=headers)
        assert resp.status_code in (302, 303) and "/signin" in resp.headers["Location"]
