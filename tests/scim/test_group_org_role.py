"""The org's admin role from SCIM groups (docs/sso.md#org-role-from-groups,
docs/scim.md#groups): granted in the PATCH that adds the person, taken back when the
group goes; owners and admins made by hand are never changed; and two reconciles of
one person at the same moment (parallel PATCHes of two groups) neither fail nor lose a
role."""

from __future__ import annotations

import threading

import requests

from tests.conftest import make_org
from tests.factories import add_person, login
from tests.scim.conftest import (
    GROUP,
    PATCH_OP,
    SCIM_JSON,
    USER,
    event_kinds,
    member_state,
    new_scim_token,
    synced,
)


def map_org_admin(client, org, group: str):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "target": "org", "role": "admin"},
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def _group(scim, name, *member_ids):
    body = {"schemas": [GROUP], "displayName": name}
    if member_ids:
        body["members"] = [{"value": m} for m in member_ids]
    resp = scim.post("/Groups", body)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def _members_op(scim, group_id, op, member_id):
    if op == "remove":
        ops = [{"op": "remove", "path": f'members[value eq "{member_id}"]'}]
    else:
        ops = [{"op": "add", "path": "members", "value": [{"value": member_id}]}]
    resp = scim.patch(f"/Groups/{group_id}", ops)
    assert resp.status_code in (200, 204), resp.get_data(as_text=True)


def test_group_makes_admin_at_once_and_removal_demotes(app, client, scim):
    mapping = map_org_admin(client, scim.org, "Admins")
    assert mapping["target"] == "org" and mapping["project_id"] is None
    ada = scim.create("ada@acme.test")
    admins = _group(scim, "Admins")
    _members_op(scim, admins["id"], "add", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "admin")
    # the members page says where the role comes from
    login(client, scim.org.owner_email)
    page = client.get(f"/o/{scim.org.slug}/settings/members").get_data(as_text=True)
    assert "Admin — via SCIM group Admins" in page
    # ...and the API says so too
    listed = client.get(scim.org.url("/members"), headers=scim.org.headers).get_json()
    row = next(m for m in listed if m["account"]["email"] == "ada@acme.test")
    assert row["role"] == "admin"

    _members_op(scim, admins["id"], "remove", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "member")
    kinds = event_kinds(app, scim.org.org_id, "scim.sync")
    assert kinds == ["scim.sync.org_role_granted", "scim.sync.org_role_revoked"]

    # deleting the group demotes too
    _members_op(scim, admins["id"], "add", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "admin")
    assert scim.delete(f"/Groups/{admins['id']}").status_code == 204
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "member")


def test_removing_the_mapping_demotes_only_what_it_granted(app, client, scim):
    map_org_admin(client, scim.org, "Admins")
    second = map_org_admin(client, scim.org, "Ops")
    ada, bob = scim.create("ada@acme.test"), scim.create("bob@acme.test")
    _group(scim, "Admins", ada["id"])
    _group(scim, "Ops", bob["id"], ada["id"])
    assert member_state(app, scim.org.org_id, "bob@acme.test") == (True, "admin")
    resp = client.delete(
        scim.org.url(f"/sso/group-mappings/{second['id']}"), headers=scim.org.headers
    )
    assert resp.status_code == 204
    # Bob held admin only through Ops; Ada still through Admins
    assert member_state(app, scim.org.org_id, "bob@acme.test") == (True, "member")
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "admin")
    assert "groupsync.org_role_revoked" in event_kinds(app, scim.org.org_id, "groupsync")


def test_owner_and_manual_admin_are_never_changed(app, client, scim):
    map_org_admin(client, scim.org, "Admins")
    owner = scim.create("boss@acme.test")
    manual = scim.create("mia@acme.test")
    for email, role in (("boss@acme.test", "owner"), ("mia@acme.test", "admin")):
        mid = _member_id(client, scim.org, email)
        resp = client.patch(
            scim.org.url(f"/members/{mid}"), json={"role": role}, headers=scim.org.headers
        )
        assert resp.status_code == 200, resp.get_json()
    admins = _group(scim, "Admins", owner["id"], manual["id"])
    assert member_state(app, scim.org.org_id, "boss@acme.test") == (True, "owner")
    assert member_state(app, scim.org.org_id, "mia@acme.test") == (True, "admin")
    scim.delete(f"/Groups/{admins['id']}")
    assert member_state(app, scim.org.org_id, "boss@acme.test") == (True, "owner")
    assert member_state(app, scim.org.org_id, "mia@acme.test") == (True, "admin")
    assert event_kinds(app, scim.org.org_id, "scim.sync") == []
    # an admin added before group sync existed (no role source) is left alone too
    add_person(app, scim.org.org_id, "old@acme.test", "admin")
    assert member_state(app, scim.org.org_id, "old@acme.test") == (True, "admin")


def test_a_person_changing_the_role_takes_it_over(app, client, scim):
    """Demoted by hand: the group does not promote them again; promoted back by hand:
    the group's removal does not demote them."""
    map_org_admin(client, scim.org, "Admins")
    ada = scim.create("ada@acme.test")
    admins = _group(scim, "Admins", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "admin")
    mid = _member_id(client, scim.org, "ada@acme.test")
    patch = client.patch(
        scim.org.url(f"/members/{mid}"), json={"role": "member"}, headers=scim.org.headers
    )
    assert patch.status_code == 200
    _members_op(scim, admins["id"], "remove", ada["id"])
    _members_op(scim, admins["id"], "add", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "member")
    patch = client.patch(
        scim.org.url(f"/members/{mid}"), json={"role": "admin"}, headers=scim.org.headers
    )
    assert patch.status_code == 200
    scim.delete(f"/Groups/{admins['id']}")
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "admin")


def _member_id(client, org, email):
    listed = client.get(org.url("/members"), headers=org.headers).get_json()
    return next(m["id"] for m in listed if m["account"]["email"] == email)


def test_parallel_patches_of_several_groups_for_the_same_person(live_server):
    """One person goes into six groups at once (Entra and Okta send one PATCH per
    group, in parallel), all mapped to one project and one also to the org's admin
    role: each reconcile adds the same project membership, which without the lock on
    the person's row collided on its unique key (a 500) or left the role of the
    group whose reconcile saw only itself."""
    app = live_server.app
    org = make_org(app, "Twice", "owner@twice.test")
    token = new_scim_token(app, org.org_id, ("twice.test",))
    base = f"{live_server.url}/scim/v2/orgs/{org.org_id}"
    api = f"{live_server.url}/api/v1/orgs/{org.org_id}"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": SCIM_JSON}

    def post(url, body, head):
        resp = requests.post(url, json=body, headers=head, timeout=60)
        assert resp.status_code == 201, resp.text
        return resp.json()

    project_id = post(f"{api}/projects", {"name": "Core", "identifier": "CORE"}, org.headers)["id"]
    names = ["Leads", "Devs", "Ops", "QA", "Web", "Data"]
    for name in names:
        role = "admin" if name == "Leads" else "member"
        mapping = {"idp_group": name, "project_id": project_id, "role": role}
        post(f"{api}/sso/group-mappings", mapping, org.headers)
    post(
        f"{api}/sso/group-mappings",
        {"idp_group": "Leads", "target": "org", "role": "admin"},
        org.headers,
    )
    groups = [
        post(f"{base}/Groups", {"schemas": [GROUP], "displayName": n}, headers)["id"] for n in names
    ]

    statuses: list[int] = []
    lock = threading.Lock()

    def add(start: threading.Barrier, group_id: str, member_id: str) -> None:
        start.wait()
        resp = requests.patch(
            f"{base}/Groups/{group_id}",
            json={
                "schemas": [PATCH_OP],
                "Operations": [{"op": "Add", "path": "members", "value": [{"value": member_id}]}],
            },
            headers=headers,
            timeout=120,
        )
        with lock:
            statuses.append(resp.status_code)

    emails = [f"p{i}@twice.test" for i in range(3)]
    for email in emails:
        person = post(f"{base}/Users", {"schemas": [USER], "userName": email}, headers)["id"]
        start = threading.Barrier(len(groups))
        threads = [threading.Thread(target=add, args=(start, g, person)) for g in groups]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    assert statuses == [200] * len(groups) * len(emails)
    for email in emails:
        assert member_state(app, org.org_id, email) == (True, "admin")
        assert synced(app, email) == {project_id: ("admin", "synced", "SCIM group Leads")}


def test_a_demoted_synced_admin_loses_the_scim_token_they_made(app, client, scim):
    map_org_admin(client, scim.org, "Admins")
    ada = scim.create("ada@acme.test")
    admins = _group(scim, "Admins", ada["id"])
    with app.app_context():
        from workspace.core.accounts import find_account

        ada_id = find_account("ada@acme.test").id
    with app.app_context():
        from workspace.extensions import db
        from workspace.scim.tokens import generate_token

        scim.token = generate_token(scim.org.org_id, ada_id)[1]  # by Ada, an admin
        db.session.commit()
    _members_op(scim, admins["id"], "remove", ada["id"])
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "member")
    assert scim.get("/Groups").status_code == 401


def test_scim_preview_shows_the_org_role_change(app, client, scim):
    map_org_admin(client, scim.org, "Admins")
    scim.create("ada@acme.test")
    login(client, scim.org.owner_email)
    html = client.post(
        f"/o/{scim.org.slug}/settings/group-sync/scim-preview",
        headers={"HX-Request": "true"},
        data={"scim_email": "ada@acme.test", "scim_group": "Admins"},
    ).get_data(as_text=True)
    assert "Would become an admin of the organization (SCIM group Admins)" in html
    assert "The organization" in html  # the mapping matched
    assert member_state(app, scim.org.org_id, "ada@acme.test") == (True, "member")
