"""The requests Microsoft Entra ID sends, from its SCIM provisioning tutorial and
validator: Test Connection, create after a lookup, capitalised PATCH ops with
string booleans, path-less replace with dotted keys, the enterprise extension,
disable and DELETE."""

from __future__ import annotations

from tests.scim.conftest import USER, assert_scim_error, event_kinds, member_state

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
ENTRA_USER = {
    "schemas": [USER, ENTERPRISE],
    "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
    "userName": "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
    "active": True,
    "emails": [{"primary": True, "type": "work", "value": "Test_User_fd0ea13b@testuser.com"}],
    "meta": {"resourceType": "User"},
    "name": {
        "formatted": "givenName familyName",
        "familyName": "familyName",
        "givenName": "givenName",
    },
    "title": None,
    "roles": [],
    ENTERPRISE: {"employeeNumber": "701984", "department": "Tour Operations"},
}


def test_entra_test_connection(scim):
    users = scim.get('/Users?filter=userName eq "non-existent user"')
    assert users.status_code == 200 and users.get_json()["totalResults"] == 0
    groups = scim.get('/Groups?excludedAttributes=members&filter=displayName eq "Group2"')
    assert groups.status_code == 200 and groups.get_json()["totalResults"] == 0


def test_entra_provisioning_lifecycle(app, scim):
    lookup = scim.get(f'/Users?filter=externalId eq "{ENTRA_USER["externalId"]}"')
    assert lookup.get_json()["totalResults"] == 0
    resp = scim.post("/Users", ENTRA_USER)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    user = resp.get_json()
    # userName is not an email here: the account is the first emails entry.
    assert member_state(app, scim.org.org_id, "test_user_fd0ea13b@testuser.com") == (True, "member")
    assert ENTERPRISE not in user
    found = scim.get(f'/Users?filter=externalId eq "{ENTRA_USER["externalId"]}"').get_json()
    assert [r["id"] for r in found["Resources"]] == [user["id"]]
    found = scim.get(f'/Users?filter=userName eq "{ENTRA_USER["userName"].upper()}"').get_json()
    assert [r["id"] for r in found["Resources"]] == [user["id"]]

    resp = scim.patch(
        f"/Users/{user['id']}",
        [
            {
                "op": "Replace",
                "path": 'emails[type eq "work"].value',
                "value": "updatedEmail@testuser.com",
            },
            {"op": "Replace", "path": "name.familyName", "value": "updatedFamilyName"},
        ],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["emails"][0]["value"] == "updatedEmail@testuser.com"
    assert body["name"]["familyName"] == "updatedFamilyName"
    found = scim.get('/Users?filter=emails[type eq "work"].value eq "updatedemail@testuser.com"')
    assert [r["id"] for r in found.get_json()["Resources"]] == [user["id"]]

    resp = scim.patch(
        f"/Users/{user['id']}",
        [
            {"op": "Add", "path": "externalId", "value": "new-object-id"},
            {
                "op": "Replace",
                "value": {
                    "displayName": "Updated Name",
                    "name.givenName": "Updated",
                    f"{ENTERPRISE}:employeeNumber": "1",
                },
            },
            {"op": "Add", "path": 'emails[type eq "home"].value', "value": "home@testuser.com"},
        ],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["externalId"] == "new-object-id" and body["displayName"] == "Updated Name"
    assert body["name"]["givenName"] == "Updated"
    assert {"value": "home@testuser.com", "type": "home"} in body["emails"]

    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "Replace", "path": "active", "value": "False"}]
    )
    assert resp.status_code == 200 and resp.get_json()["active"] is False
    assert member_state(app, scim.org.org_id, "test_user_fd0ea13b@testuser.com") == (
        False,
        "member",
    )
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "Replace", "path": "active", "value": "True"}]
    )
    assert resp.get_json()["active"] is True

    assert scim.delete(f"/Users/{user['id']}").status_code == 204
    assert member_state(app, scim.org.org_id, "test_user_fd0ea13b@testuser.com") == (
        False,
        "member",
    )
    assert_scim_error(scim.get(f"/Users/{user['id']}"), 404)
    assert_scim_error(scim.delete(f"/Users/{user['id']}"), 404)
    assert scim.get('/Users?filter=externalId eq "new-object-id"').get_json()["totalResults"] == 0
    assert event_kinds(app, scim.org.org_id) == [
        "scim.user.provisioned",
        "scim.user.deactivated",
        "scim.user.reactivated",
        "scim.user.deactivated",
    ]


def test_entra_remove_with_value(scim):
    user = scim.create(
        "rem@testuser.com",
        emails=[
            {"value": "rem@testuser.com", "type": "work", "primary": True},
            {"value": "other@testuser.com", "type": "other"},
        ],
    )
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "Remove", "path": "emails", "value": [{"value": "other@testuser.com"}]}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert [e["value"] for e in resp.get_json()["emails"]] == ["rem@testuser.com"]


def test_entra_renames_a_user_when_the_upn_changes(app, scim):
    """Entra sends ``Replace userName`` when a UPN changes; refused before, now the
    account follows when the new address is on a verified domain (docs/scim.md#renames)."""
    user = scim.post("/Users", ENTRA_USER).get_json()
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "Replace", "path": "userName", "value": "Renamed.UPN@testuser.com"}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["userName"] == "Renamed.UPN@testuser.com"
    assert member_state(app, scim.org.org_id, "renamed.upn@testuser.com") == (True, "member")
    assert member_state(app, scim.org.org_id, "test_user_fd0ea13b@testuser.com") is None
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "Replace", "path": "userName", "value": "someone@contoso.example"}],
    )
    assert "verified" in assert_scim_error(resp, 400, "invalidValue")["detail"]
    assert event_kinds(app, scim.org.org_id) == ["scim.user.provisioned", "scim.user.renamed"]
