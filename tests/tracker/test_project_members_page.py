"""The project members page (docs/projects.md#members): manual members are added,
changed and removed there; synced ones say which IdP group owns them and refuse any
manual change, on the page and through the JSON API alike. Group sync is driven by its
own reconcile (tests/identity/sso drive it through real SSO sign-ins)."""

from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import select

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    login,
    member_id,
    setup_project,
)
from workspace.core.models import ProjectMember
from workspace.extensions import db
from workspace.identity.groupsync import service as groupsync

MANAGE_403 = "Only a project admin can manage project members."


def _page(org, project, path=""):
    return f"/o/{org.slug}/projects/{project['id']}/members{path}"


def _map(client, org, group, project, role):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project["id"], "role": role},
    )
    assert resp.status_code == 201, resp.get_json()


def _sync(app, org, person, groups):
    """What an SSO sign-in with ``groups`` does to the person's project roles."""
    with app.app_context():
        groupsync.reconcile(
            org.org_id, person.owner_id, person.owner_email, groups, remove_stale=True
        )
        db.session.commit()


def _membership(app, project, person):
    with app.app_context():
        pm = db.session.scalar(
            select(ProjectMember).where(
                ProjectMember.project_id == uuid.UUID(project["id"]),
                ProjectMember.account_id == person.owner_id,
            )
        )
        return (pm.role, pm.source, pm.synced_group) if pm else None


def _member_id(client, org, project, email):
    members = client.get(org.url(f"/projects/{project['id']}/members"), headers=org.headers)
    return next(m["id"] for m in members.get_json() if m["account"]["email"] == email)


def _events(client, org, kind):
    return client.get(
        org.url("/events"), query_string={"kind": kind}, headers=org.headers
    ).get_json()


@pytest.fixture
def team(app, client, acme):
    """The owner signed in; a project; Mia (not in it), Sam (synced admin through the
    ``leads`` group)."""
    login(client, acme.owner_email)
    project, _ = setup_project(client, acme)
    mia = add_person(app, acme.org_id, "mia@acme.test")
    sam = add_person(app, acme.org_id, "sam@acme.test")
    _map(client, acme, "devs", project, "member")
    _map(client, acme, "leads", project, "admin")
    _sync(app, acme, sam, ["devs", "leads"])
    return project, mia, sam


def test_page_shows_each_member_with_role_and_source(client, acme, team):
    project, _, _ = team
    html = client.get(_page(acme, project)).get_data(as_text=True)
    assert "owner@acme.test" in html and "sam@acme.test" in html
    owner_row = html.split('class="ps-item ps-member"')[1]
    assert "Acme Owner" in owner_row and "Admin" in owner_row and "Manual" in owner_row
    sam_row = next(r for r in html.split('class="ps-item ps-member"') if "sam@acme.test" in r)
    assert "Synced" in sam_row and "Managed by group sync (SSO group leads)" in sam_row
    assert "Change role" not in sam_row and "Remove" not in sam_row
    # Your own admin role: changing or removing it asks first, saying what you lose.
    assert (
        'data-confirm="Change your own role in Web App? You can then no longer manage' in owner_row
    )
    assert "Remove yourself from Web App?" in owner_row
    # The add form offers Mia, who is not in the project, and not those who are.
    add_form = html.split('id="add"')[1].split("</section>")[0]
    assert "mia@acme.test" in add_form and "sam@acme.test" not in add_form


def test_add_change_and_remove_a_manual_member(app, client, acme, team):
    project, mia, _ = team
    resp = client.post(
        _page(acme, project), data={"account_id": str(mia.owner_id), "role": "commenter"}
    )
    assert resp.status_code == 303
    assert _membership(app, project, mia) == ("commenter", "manual", None)
    member_id = _member_id(client, acme, project, "mia@acme.test")
    html = client.get(_page(acme, project)).get_data(as_text=True)
    assert 'data-confirm="Remove mia@acme.test from Web App?' in html

    assert (
        client.post(_page(acme, project, f"/{member_id}"), data={"role": "admin"}).status_code
        == 303
    )
    assert _membership(app, project, mia) == ("admin", "manual", None)
    assert client.post(_page(acme, project, f"/{member_id}/remove")).status_code == 303
    assert _membership(app, project, mia) is None

    kinds = {
        e["kind"]: e
        for e in _events(client, acme, "project.member")
        if e["subject"] == "mia@acme.test"
    }
    assert set(kinds) == {
        "project.member_added",
        "project.member_changed",
        "project.member_removed",
    }
    assert {e["actor_id"] for e in kinds.values()} == {str(acme.owner_id)}
    assert kinds["project.member_changed"]["data"]["old_role"] == "commenter"


def test_search_narrows_the_people_offered(app, client, acme, team):
    project, _, _ = team
    add_person(app, acme.org_id, "zoe@acme.test")
    html = client.get(_page(acme, project), query_string={"q": "ZO"}).get_data(as_text=True)
    add_form = html.split('id="add"')[1].split("</section>")[0]
    assert "zoe@acme.test" in add_form and "mia@acme.test" not in add_form
    html = client.get(_page(acme, project), query_string={"q": "nobody"}).get_data(as_text=True)
    assert "Nobody in Acme matches" in html


def test_add_errors_are_shown_beside_the_field(client, acme, globex, team):
    project, mia, _ = team
    resp = client.post(
        _page(acme, project), data={"account_id": str(globex.owner_id), "role": "member"}
    )
    assert resp.status_code == 400
    assert re.search(r'id="add-account_id-error">[^<]+<', resp.get_data(as_text=True))
    resp = client.post(_page(acme, project), data={"account_id": str(mia.owner_id), "role": "boss"})
    assert resp.status_code == 400 and 'id="add-role-error"' in resp.get_data(as_text=True)
    resp = client.post(_page(acme, project), data={"account_id": "nope", "role": "member"})
    assert resp.status_code == 400 and 'id="add-account_id-error"' in resp.get_data(as_text=True)
    assert (
        client.post(_page(acme, project, f"/{uuid.uuid4()}"), data={"role": "admin"}).status_code
        == 404
    )
    assert client.post(_page(acme, project, f"/{uuid.uuid4()}/remove")).status_code == 404


def test_synced_membership_refuses_manual_changes_everywhere(app, client, acme, team):
    project, _, sam = team
    member_id = _member_id(client, acme, project, "sam@acme.test")
    message = "managed by group sync (SSO group leads)"
    resp = client.post(_page(acme, project, f"/{member_id}"), data={"role": "viewer"})
    assert resp.status_code == 409 and message in resp.get_data(as_text=True)
    resp = client.post(_page(acme, project, f"/{member_id}/remove"))
    assert resp.status_code == 409 and message in resp.get_data(as_text=True)
    resp = client.post(
        _page(acme, project), data={"account_id": str(sam.owner_id), "role": "viewer"}
    )
    assert resp.status_code == 409
    # The JSON API refuses the same way.
    members_url = acme.url(f"/projects/{project['id']}/members")
    resp = client.post(
        members_url, json={"account_id": str(sam.owner_id), "role": "viewer"}, headers=acme.headers
    )
    assert_problem(resp, 409, "account_id")
    assert message in resp.get_json()["detail"]
    assert_problem(client.delete(f"{members_url}/{member_id}", headers=acme.headers), 409)
    assert _membership(app, project, sam) == ("admin", "synced", "leads")
    refused = [e for e in _events(client, acme, "project.member") if "sam@" in e["subject"]]
    assert refused == []


def test_group_sync_names_the_granting_group(app, client, acme, team):
    project, mia, sam = team
    assert _membership(app, project, sam) == ("admin", "synced", "leads")
    _sync(app, acme, sam, ["devs"])  # left the leads group
    assert _membership(app, project, sam) == ("member", "synced", "devs")
    _map(client, acme, "qa", project, "member")  # a tie: the group that sorts first
    _sync(app, acme, mia, ["qa", "devs"])
    assert _membership(app, project, mia) == ("member", "synced", "devs")
    _sync(app, acme, mia, ["qa"])  # same role, now from another group; no event
    assert _membership(app, project, mia) == ("member", "synced", "qa")
    html = client.get(_page(acme, project)).get_data(as_text=True)
    assert "Managed by group sync (SSO group qa)" in html


# -- the permission table -------------------------------------------------------------------

ROLES = ["viewer", "commenter", "member", "admin", "agent"]


@pytest.mark.parametrize("role", ROLES)
def test_permission_table(app, client, acme, team, role):
    project, mia, _ = team
    members_url = acme.url(f"/projects/{project['id']}/members")
    agent = create_agent(client, acme, project_ids=[project["id"]])
    if role == "agent":
        resp = app.test_client().get(_page(acme, project), headers=bearer(agent["token"]))
        assert resp.status_code == 302 and "/signin" in resp.location
        # The JSON API answers the agent as its project role (member) says.
        resp = client.post(
            members_url,
            json={"account_id": str(mia.owner_id), "role": "viewer"},
            headers=bearer(agent["token"]),
        )
        assert_problem(resp, 403)
        assert resp.get_json()["detail"] == MANAGE_403
        assert client.get(members_url, headers=bearer(agent["token"])).status_code == 200
        return
    if role == "admin":
        caller = add_person(app, acme.org_id, "boss@acme.test", role="admin")
    else:
        caller = add_person(app, acme.org_id, f"{role}@acme.test")
        resp = client.post(
            members_url,
            json={"account_id": str(caller.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code == 201
    target = add_person(app, acme.org_id, "target@acme.test")
    resp = client.post(
        members_url,
        json={"account_id": str(target.owner_id), "role": "viewer"},
        headers=acme.headers,
    )
    target_id = resp.get_json()["id"]
    browser = app.test_client()
    login(browser, caller.owner_email)
    assert browser.get(_page(acme, project)).status_code == 200
    writes = [
        (_page(acme, project), {"account_id": str(mia.owner_id), "role": "viewer"}),
        (_page(acme, project, f"/{target_id}"), {"role": "commenter"}),
        (_page(acme, project, f"/{target_id}/remove"), None),
    ]
    for url, form in writes:
        resp = browser.post(url, data=form)
        if role == "admin":
            assert resp.status_code == 303, (url, resp.get_data(as_text=True)[:300])
        else:
            assert resp.status_code == 403, url
            assert MANAGE_403 in resp.get_data(as_text=True)
    html = browser.get(_page(acme, project)).get_data(as_text=True)
    if role == "admin":
        assert "Add member" in html
    else:
        assert "Add member" not in html and "Change role" not in html
        assert "only a project admin (or an org owner or admin) can" in html


def test_pages_are_404_for_another_org(app, client, acme, globex, team):
    project, _, _ = team
    outsider = app.test_client()
    login(outsider, globex.owner_email)
    assert outsider.get(_page(acme, project)).status_code == 404
    assert outsider.get(f"/o/{globex.slug}/projects/{project['id']}/members").status_code == 404


def test_a_person_deactivated_in_the_org_is_listed_as_such_without_a_role_form(
    app, client, acme, team
):
    """Deactivated in the org, a member kept their project row; the page listed them
    as any member, counted them, and offered Change role, which then failed."""
    project, mia, _ = team
    url = acme.url(f"/projects/{project['id']}/members")
    added = client.post(url, json={"account_id": str(mia.owner_id)}, headers=acme.headers)
    assert added.status_code == 201, added.get_json()
    member = member_id(app, acme.org_id, "mia@acme.test")
    off = client.patch(acme.url(f"/members/{member}"), json={"active": False}, headers=acme.headers)
    assert off.status_code == 200

    html = client.get(_page(acme, project)).get_data(as_text=True)
    assert "2 in this project, 1 deactivated in Acme" in html
    mia_row = next(r for r in html.split('class="ps-item ps-member"') if "mia@acme.test" in r)
    assert "Deactivated</span>" in mia_row and "no access to this project" in mia_row
    assert "Change role" not in mia_row and ">Remove</button>" in mia_row
    listed = {
        m["account"]["email"]: m["org_active"]
        for m in client.get(url, headers=acme.headers).get_json()
    }
    assert listed["mia@acme.test"] is False and listed["owner@acme.test"] is True
