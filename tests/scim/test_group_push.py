"""The group requests Okta Group Push and Entra ID group provisioning send, written as
their documentation shows them, with group sync's effect asserted after each one: the
project role appears or goes in the same request (docs/scim.md#groups)."""

from __future__ import annotations

from tests.factories import create_project
from tests.scim.conftest import GROUP, LIST, PATCH_OP, event_kinds, map_group, synced

USERS = ("ann@okta.local", "ben@okta.local", "cat@okta.local")


def _people(scim, emails=USERS):
    return [scim.create(e)["id"] for e in emails]


def _project(client, scim, mapping, role="member"):
    project = create_project(client, scim.org, f"Project {mapping}", mapping[:4].upper())["id"]
    map_group(client, scim.org, mapping, project, role)
    return project


def test_okta_group_push_sequence(app, client, scim):
    ann, ben, cat = _people(scim)
    project = _project(client, scim, "Engineering")
    renamed = _project(client, scim, "Eng Team", "admin")

    # Okta looks the group up by name before pushing it.
    lookup = scim.get('/Groups?filter=displayName eq "Engineering"&startIndex=1&count=100')
    assert lookup.status_code == 200 and lookup.get_json()["totalResults"] == 0
    resp = scim.post(
        "/Groups",
        {
            "schemas": [GROUP],
            "displayName": "Engineering",
            "members": [{"value": ann, "display": "ann@okta.local"}],
        },
    )
    assert resp.status_code == 201, resp.get_data(as_text=True)
    group = resp.get_json()
    gid = group["id"]
    assert synced(app, "ann@okta.local") == {
        project: ("member", "synced", "SCIM group Engineering")
    }

    # Rename: a path-less replace whose value carries the group's own id.
    resp = scim.request(
        "PATCH",
        f"/Groups/{gid}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "replace", "value": {"id": gid, "displayName": "Eng Team"}}],
        },
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["displayName"] == "Eng Team"
    assert synced(app, "ann@okta.local") == {renamed: ("admin", "synced", "SCIM group Eng Team")}

    # Add a member.
    resp = scim.patch(
        f"/Groups/{gid}",
        [{"op": "add", "path": "members", "value": [{"value": ben, "display": "ben@okta.local"}]}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert synced(app, "ben@okta.local") == {renamed: ("admin", "synced", "SCIM group Eng Team")}

    # Remove a member by a filter path.
    resp = scim.patch(f"/Groups/{gid}", [{"op": "remove", "path": f'members[value eq "{ann}"]'}])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert [m["value"] for m in resp.get_json()["members"]] == [ben]
    assert synced(app, "ann@okta.local") == {}

    # Replace the members outright.
    resp = scim.patch(
        f"/Groups/{gid}",
        [{"op": "replace", "path": "members", "value": [{"value": cat}, {"value": ann}]}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert {m["value"] for m in resp.get_json()["members"]} == {ann, cat}
    assert synced(app, "ben@okta.local") == {}
    assert synced(app, "cat@okta.local")[renamed][0] == "admin"

    # Okta deletes the group when it is unlinked with "delete the group in the app".
    assert scim.delete(f"/Groups/{gid}").status_code == 204
    assert synced(app, "ann@okta.local") == {} and synced(app, "cat@okta.local") == {}
    kinds = event_kinds(app, scim.org.org_id, "scim.group")
    assert kinds[0] == "scim.group.created" and kinds[-1] == "scim.group.deleted"
    assert "scim.group.updated" in kinds and "scim.group.member_removed" in kinds


def test_entra_group_provisioning_sequence(app, client, scim):
    ann, ben, cat = _people(scim)
    project = _project(client, scim, "Sales EU", "commenter")

    # Entra's Test Connection and first cycle: get by a filter that matches nothing,
    # then create, then read it back without members.
    empty = scim.get('/Groups?excludedAttributes=members&filter=displayName eq "Sales EU"')
    assert empty.get_json()["schemas"] == [LIST] and empty.get_json()["totalResults"] == 0
    resp = scim.post(
        "/Groups",
        {
            "schemas": [GROUP],
            "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
            "displayName": "Sales EU",
            "members": [],
        },
    )
    assert resp.status_code == 201, resp.get_data(as_text=True)
    gid = resp.get_json()["id"]
    found = scim.get('/Groups?excludedAttributes=members&filter=displayName eq "Sales EU"')
    resource = found.get_json()["Resources"][0]
    assert resource["id"] == gid and "members" not in resource
    one = scim.get(f"/Groups/{gid}?excludedAttributes=members").get_json()
    assert one["displayName"] == "Sales EU" and "members" not in one

    # Several members in one capitalised operation.
    resp = scim.patch(
        f"/Groups/{gid}",
        [
            {
                "op": "Add",
                "path": "members",
                "value": [{"value": ann}, {"value": ben}, {"value": cat}],
            }
        ],
    )
    assert resp.status_code in (200, 204), resp.get_data(as_text=True)
    for email in USERS:
        assert synced(app, email) == {project: ("commenter", "synced", "SCIM group Sales EU")}

    # Remove with the values to remove.
    resp = scim.patch(
        f"/Groups/{gid}",
        [{"op": "Remove", "path": "members", "value": [{"value": ann}, {"value": ben}]}],
    )
    assert resp.status_code in (200, 204), resp.get_data(as_text=True)
    assert synced(app, "ann@okta.local") == {} and synced(app, "ben@okta.local") == {}
    assert synced(app, "cat@okta.local")[project][0] == "commenter"

    # Rename with a capitalised Replace.
    resp = scim.patch(
        f"/Groups/{gid}", [{"op": "Replace", "path": "displayName", "value": "Sales"}]
    )
    assert resp.status_code in (200, 204) and resp.get_json()["displayName"] == "Sales"
    assert synced(app, "cat@okta.local") == {}
    by_external = scim.get(
        '/Groups?filter=externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"'
    ).get_json()
    assert [r["displayName"] for r in by_external["Resources"]] == ["Sales"]
