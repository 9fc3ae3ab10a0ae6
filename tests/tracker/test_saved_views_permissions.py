"""Saved views by caller (docs/saved_views.md#who-sees-what): a project member saves
and sees their own and the shared views; a project viewer uses the shared ones but
saves none (403); an agent reads, never saves; someone else's private view is a 404,
to its org's owner too; a shared view changes only by its owner or a project admin;
another org's member gets a 404 and the anonymous a 401 or the sign-in page."""

from __future__ import annotations

import pytest

from tests.factories import (
    assert_problem,
    bearer,
    create_agent,
    login,
    make_org,
    project_roles,
    setup_project,
)


@pytest.fixture
def world(client, acme, app):
    project, _ = setup_project(client, acme)
    people = project_roles(client, app, acme, project)
    member = people["member"]
    base = acme.url(f"/projects/{project['id']}/views")

    def save(headers, **body):
        resp = client.post(base, json={"name": "A view"} | body, headers=headers)
        assert resp.status_code == 201, resp.get_json()
        return resp.get_json()

    views = {
        "owner private": save(acme.headers, name="Owner private"),
        "owner shared": save(acme.headers, name="Owner shared", shared=True),
        "member private": save(member.headers, name="Member private"),
        "member shared": save(member.headers, name="Member shared", shared=True),
    }
    callers = {
        "owner": acme.headers,
        "member": member.headers,
        "viewer": people["viewer"].headers,
        "agent": bearer(create_agent(client, acme, project_ids=[project["id"]])["token"]),
    }
    outsider = make_org(app, "Globex", "owner@globex.test")
    return base, project, views, callers, outsider


#: What each caller lists.
SEES = {
    "owner": ["Member shared", "Owner private", "Owner shared"],
    "member": ["Member private", "Member shared", "Owner shared"],
    "viewer": ["Member shared", "Owner shared"],
    "agent": ["Member shared", "Owner shared"],
}

#: The status of renaming each view, by caller: 200 allowed, 403 refused, 404 hidden.
RENAME = {
    "owner": {
        "owner private": 200,
        "owner shared": 200,
        "member private": 404,
        "member shared": 200,
    },
    "member": {
        "owner private": 404,
        "owner shared": 403,
        "member private": 200,
        "member shared": 200,
    },
    "viewer": {
        "owner private": 403,
        "owner shared": 403,
        "member private": 403,
        "member shared": 403,
    },
    "agent": {
        "owner private": 403,
        "owner shared": 403,
        "member private": 403,
        "member shared": 403,
    },
}


def test_who_lists_and_reads_what(client, world):
    base, _, views, callers, outsider = world
    for caller, headers in callers.items():
        resp = client.get(base, headers=headers)
        assert resp.status_code == 200, caller
        assert [v["name"] for v in resp.get_json()] == SEES[caller], caller
        for key, view in views.items():
            resp = client.get(f"{base}/{view['id']}", headers=headers)
            expected = 200 if view["name"] in SEES[caller] else 404
            assert resp.status_code == expected, (caller, key)
    assert_problem(client.get(base, headers=outsider.headers), 404)
    assert_problem(
        client.get(f"{base}/{views['owner shared']['id']}", headers=outsider.headers), 404
    )
    assert_problem(client.get(base), 401)


def test_who_saves_changes_and_deletes_what(client, world):
    base, _, views, callers, outsider = world
    for caller, headers in callers.items():
        resp = client.post(base, json={"name": f"New by {caller}"}, headers=headers)
        assert resp.status_code == (201 if caller in ("owner", "member") else 403), caller
        for key, view in views.items():
            resp = client.patch(f"{base}/{view['id']}", json={"pql": "kind = bug"}, headers=headers)
            assert resp.status_code == RENAME[caller][key], (caller, key, resp.get_json())
    assert_problem(client.post(base, json={"name": "x"}, headers=outsider.headers), 404)
    target = f"{base}/{views['member shared']['id']}"
    assert_problem(client.delete(target, headers=outsider.headers), 404)
    assert_problem(client.delete(target, headers=callers["viewer"]), 403)
    assert_problem(
        client.delete(f"{base}/{views['owner shared']['id']}", headers=callers["member"]), 403
    )
    assert_problem(
        client.delete(f"{base}/{views['owner private']['id']}", headers=callers["member"]), 404
    )
    # A project admin (here the org owner) tidies a member's shared view.
    assert client.delete(target, headers=callers["owner"]).status_code == 204


def test_pages_by_caller(client, world, app, acme):
    _, project, views, callers, outsider = world
    page = f"/o/{acme.slug}/projects/{project['id']}"
    shared, private = views["owner shared"]["id"], views["owner private"]["id"]
    for who, can_save in (("member", True), ("viewer", False)):
        login(client, f"{who}@acme.test")
        html = client.get(page).get_data(as_text=True)
        assert ">Owner shared<" in html and "Owner private" not in html, who
        assert ("Save view" in html) is can_save, who
        assert client.get(f"{page}?view={shared}").status_code == 200, who
        assert client.get(f"{page}?view={private}").status_code == 404, who
        resp = client.post(f"{page}/views", data={"name": "Mine"})
        assert resp.status_code == (302 if can_save else 403), who
        resp = client.post(f"{page}/views/{shared}/delete")
        assert resp.status_code == 403, who
        client.post("/signout")
    login(client, outsider.owner_email)
    assert client.get(f"{page}?view={shared}").status_code == 404
    assert client.post(f"{page}/views", data={"name": "x"}).status_code == 404
    client.post("/signout")
    fresh = app.test_client()
    for headers in ({}, callers["agent"]):  # an agent's token opens no page
        resp = fresh.post(f"{page}/views", data={"name": "x"}, headers=headers)
        assert resp.status_code in (302, 303) and "/signin" in resp.headers["Location"]


def test_page_update_is_refused_as_rename_is(client, world, acme):
    """Saving changes to a view from the page takes what renaming it takes: the same
    status and message, by caller and view (RENAME)."""
    _, project, views, _, _ = world
    page = f"/o/{acme.slug}/projects/{project['id']}"
    changes = {"kind": "list", "pql": "kind = bug", "sort": "created", "direction": "desc"}
    for who in ("owner", "member", "viewer"):
        login(client, f"{who}@acme.test")
        for key, view in views.items():
            url = f"{page}/views/{view['id']}"
            renamed = client.post(f"{url}/rename?view={view['id']}", data={"name": view["name"]})
            updated = client.post(f"{url}/update", data=changes)
            expected = RENAME[who][key]
            assert renamed.status_code == (302 if expected == 200 else expected), (who, key)
            assert updated.status_code == renamed.status_code, (who, key)
            if expected == 403 and who == "member":
                message = "Only the view&#39;s owner or a project admin can change a shared view."
                assert message in updated.get_data(as_text=True), key
        client.post("/signout")
