"""SCIM Groups (docs/scim.md#groups): the protocol rules of /Groups, and group sync fed
by them: a membership change reconciles project roles in the same request."""

from __future__ import annotations

from tests.factories import create_project
from tests.scim.conftest import GROUP, LIST, assert_scim_error, event_kinds, synced
from tests.scim.conftest import map_group as _map


def _group(scim, name, *member_ids, **extra):
    body = {"schemas": [GROUP], "displayName": name, **extra}
    if member_ids:
        body["members"] = [{"value": m} for m in member_ids]
    resp = scim.post("/Groups", body)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def test_create_read_list_and_uniqueness(scim):
    alice = scim.create("alice@acme.test")
    created = _group(scim, "Backend", alice["id"], externalId="ext-1")
    assert created["displayName"] == "Backend" and created["externalId"] == "ext-1"
    assert [m["value"] for m in created["members"]] == [alice["id"]]
    assert created["members"][0]["$ref"].endswith(f"/Users/{alice['id']}")
    assert created["meta"]["resourceType"] == "Group"

    read = scim.get(f"/Groups/{created['id']}").get_json()
    assert read["displayName"] == "Backend" and len(read["members"]) == 1
    assert (
        "members" not in scim.get(f"/Groups/{created['id']}?excludedAttributes=members").get_json()
    )

    body = assert_scim_error(
        scim.post("/Groups", {"schemas": [GROUP], "displayName": "backend"}), 409, "uniqueness"
    )
    assert "Backend" in body["detail"] or "backend" in body["detail"]

    _group(scim, "Frontend")
    _group(scim, "Ops")
    listing = scim.get("/Groups?startIndex=2&count=1").get_json()
    assert listing["schemas"] == [LIST] and listing["totalResults"] == 3
    assert [r["displayName"] for r in listing["Resources"]] == ["Frontend"]
    found = scim.get('/Groups?filter=displayName eq "backend"').get_json()
    assert [r["id"] for r in found["Resources"]] == [created["id"]]
    by_ext = scim.get('/Groups?filter=externalId eq "ext-1"').get_json()
    assert by_ext["totalResults"] == 1
    assert_scim_error(scim.get('/Groups?filter=displayName co "back"'), 400, "invalidFilter")
    assert_scim_error(scim.get("/Groups/not-a-group"), 404)


def test_members_must_be_this_orgs_scim_users(app, scim, globex):
    from tests.scim.conftest import Scim, new_scim_token

    other = Scim(scim.client, globex, new_scim_token(app, globex.org_id, ("globex.test",)))
    stranger = other.create("sam@globex.test")
    body = assert_scim_error(
        scim.post(
            "/Groups",
            {"schemas": [GROUP], "displayName": "Mixed", "members": [{"value": stranger["id"]}]},
        ),
        400,
        "invalidValue",
    )
    assert stranger["id"] in body["detail"]
    body = assert_scim_error(
        scim.post(
            "/Groups", {"schemas": [GROUP], "displayName": "X", "members": [{"value": "nope"}]}
        ),
        400,
        "invalidValue",
    )
    assert "'nope'" in body["detail"]
    assert scim.get("/Groups").get_json()["totalResults"] == 0


def test_put_replaces_and_delete_answers_204_then_404(app, scim):
    a, b = scim.create("a@acme.test"), scim.create("b@acme.test")
    group = _group(scim, "Team", a["id"])
    resp = scim.put(
        f"/Groups/{group['id']}",
        {
            "schemas": [GROUP],
            "id": group["id"],
            "displayName": "Team 2",
            "members": [{"value": b["id"]}],
        },
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["displayName"] == "Team 2"
    assert [m["value"] for m in resp.get_json()["members"]] == [b["id"]]
    assert scim.delete(f"/Groups/{group['id']}").status_code == 204
    assert_scim_error(scim.get(f"/Groups/{group['id']}"), 404)
    assert event_kinds(app, scim.org.org_id, "scim.group") == [
        "scim.group.created",
        "scim.group.member_added",
        "scim.group.updated",
        "scim.group.member_added",
        "scim.group.member_removed",
        "scim.group.deleted",
    ]


def test_discovery_describes_group(scim):
    types = scim.get("/ResourceTypes").get_json()
    assert {r["name"] for r in types["Resources"]} == {"User", "Group"}
    group_type = scim.get("/ResourceTypes/Group").get_json()
    assert group_type["endpoint"] == "/Groups" and group_type["schema"] == GROUP
    schema = scim.get(f"/Schemas/{GROUP}").get_json()
    assert {a["name"] for a in schema["attributes"]} == {"displayName", "members"}
    assert scim.get("/ServiceProviderConfig").get_json()["patch"]["supported"] is True


def test_membership_change_reconciles_roles_at_once(app, client, scim):
    project = create_project(client, scim.org, "Backend API", "BAPI")["id"]
    _map(client, scim.org, "Backend", project, "member")
    _map(client, scim.org, "Leads", project, "admin")
    alice = scim.create("alice@acme.test")
    backend = _group(scim, "Backend")
    assert synced(app, "alice@acme.test") == {}

    scim.patch(
        f"/Groups/{backend['id']}",
        [{"op": "add", "path": "members", "value": [{"value": alice["id"]}]}],
    )
    assert synced(app, "alice@acme.test") == {project: ("member", "synced", "SCIM group Backend")}

    leads = _group(scim, "Leads", alice["id"])
    assert synced(app, "alice@acme.test") == {project: ("admin", "synced", "SCIM group Leads")}
    # Removing the higher group demotes only what it granted.
    scim.delete(f"/Groups/{leads['id']}")
    assert synced(app, "alice@acme.test") == {project: ("member", "synced", "SCIM group Backend")}
    # A rename to an unmapped name takes the role away.
    resp = scim.patch(
        f"/Groups/{backend['id']}",
        [{"op": "replace", "path": "displayName", "value": "Old Backend"}],
    )
    assert resp.status_code == 200
    assert synced(app, "alice@acme.test") == {}
    scim.patch(
        f"/Groups/{backend['id']}", [{"op": "replace", "path": "displayName", "value": "Backend"}]
    )
    assert synced(app, "alice@acme.test") == {project: ("member", "synced", "SCIM group Backend")}
    from tests.factories import login

    login(client, scim.org.owner_email)
    html = client.get(f"/o/{scim.org.slug}/projects/{project}/members").get_data(as_text=True)
    assert "Managed by group sync (SCIM group Backend)" in html
    api = client.get(scim.org.url(f"/projects/{project}/members"), headers=scim.org.headers)
    row = next(m for m in api.get_json() if m["account"]["email"] == "alice@acme.test")
    assert (row["synced_group"], row["synced_source"]) == ("Backend", "scim")
    kinds = event_kinds(app, scim.org.org_id, "scim.sync")
    assert kinds[:3] == ["scim.sync.added", "scim.sync.changed", "scim.sync.changed"]
    assert "scim.sync.removed" in kinds


def test_deactivated_or_deleted_user_loses_group_roles(app, client, scim):
    project = create_project(client, scim.org, "Infra", "INF")["id"]
    _map(client, scim.org, "Infra", project, "commenter")
    bob = scim.create("bob@acme.test")
    group = _group(scim, "Infra", bob["id"])
    assert synced(app, "bob@acme.test")[project][0] == "commenter"

    scim.patch(f"/Users/{bob['id']}", [{"op": "replace", "value": {"active": False}}])
    assert synced(app, "bob@acme.test") == {}
    scim.patch(f"/Users/{bob['id']}", [{"op": "replace", "value": {"active": True}}])
    assert synced(app, "bob@acme.test")[project][0] == "commenter"

    assert scim.delete(f"/Users/{bob['id']}").status_code == 204
    assert synced(app, "bob@acme.test") == {}
    assert scim.get(f"/Groups/{group['id']}").get_json().get("members", []) == []


def test_manual_membership_is_left_alone(app, client, scim):
    from workspace.core.accounts import find_account

    project = create_project(client, scim.org, "Docs", "DOC")["id"]
    _map(client, scim.org, "Writers", project, "admin")
    carol = scim.create("carol@acme.test")
    with app.app_context():
        account_id = str(find_account("carol@acme.test").id)
    resp = client.post(
        scim.org.url(f"/projects/{project}/members"),
        headers=scim.org.headers,
        json={"account_id": account_id, "role": "viewer"},
    )
    assert resp.status_code == 201, resp.get_json()
    group = _group(scim, "Writers", carol["id"])
    assert synced(app, "carol@acme.test") == {project: ("viewer", "manual", None)}
    scim.delete(f"/Groups/{group['id']}")
    assert synced(app, "carol@acme.test") == {project: ("viewer", "manual", None)}


def test_group_sync_page_previews_scim_groups(app, client, scim):
    from tests.factories import login

    project = create_project(client, scim.org, "Payments", "PAY")["id"]
    _map(client, scim.org, "Payments", project, "member")
    dana = scim.create("dana@acme.test")
    _group(scim, "Payments", dana["id"])
    scim.create("eli@acme.test")
    login(client, scim.org.owner_email)
    page = client.get(f"/o/{scim.org.slug}/settings/group-sync").get_data(as_text=True)
    assert "Preview SCIM groups" in page and '<option value="Payments">' in page

    url = f"/o/{scim.org.slug}/settings/group-sync/scim-preview"
    resp = client.post(url, data={"scim_email": "eli@acme.test", "scim_group": "Payments"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "SCIM group <span" in html and "Project" in html
    assert "badge-success" in html  # an add: Eli would get Payments as member
    assert synced(app, "eli@acme.test") == {}  # nothing written

    resp = client.post(url, data={"scim_email": "dana@acme.test", "scim_group": ""})
    assert "No changes" in resp.get_data(as_text=True)
    resp = client.post(url, data={"scim_email": "", "scim_group": ""})
    assert resp.status_code == 400 and "Enter the person" in resp.get_data(as_text=True)

    # The audit log names who the identity provider put in which group.
    log = client.get(f"/o/{scim.org.slug}/settings/events?kind=scim.group").get_data(as_text=True)
    assert "scim.group.member_added" in log and "dana@acme.test" in log
