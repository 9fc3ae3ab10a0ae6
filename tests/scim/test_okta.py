"""The requests Okta sends, as its SCIM 2.0 provisioning guide documents them:
look up by userName, create, read, push profile with PUT, deactivate and
reactivate with a path-less PATCH, push a password. Okta never deletes."""

from __future__ import annotations

from tests.scim.conftest import PATCH_OP, USER, event_kinds, member_state

OKTA_USER = {
    "schemas": [USER],
    "userName": "test.user@okta.local",
    "name": {"givenName": "Test", "familyName": "User"},
    "emails": [{"primary": True, "value": "test.user@okta.local", "type": "work"}],
    "displayName": "Test User",
    "locale": "en-US",
    "externalId": "00ujl29u0le5T6Aj10h7",
    "groups": [],
    "password": "1mz050nq",
    "active": True,
}


def test_okta_provisioning_lifecycle(app, scim):
    lookup = scim.get('/Users?filter=userName eq "test.user@okta.local"&startIndex=1&count=100')
    assert lookup.status_code == 200
    assert lookup.get_json()["totalResults"] == 0 and lookup.get_json()["Resources"] == []

    resp = scim.post("/Users", OKTA_USER)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    user = resp.get_json()
    assert user["externalId"] == "00ujl29u0le5T6Aj10h7" and user["active"] is True
    assert "password" not in user and "locale" not in user and "groups" not in user
    assert member_state(app, scim.org.org_id, "test.user@okta.local") == (True, "member")

    again = scim.get('/Users?filter=userName eq "test.user@okta.local"&startIndex=1&count=100')
    assert [r["id"] for r in again.get_json()["Resources"]] == [user["id"]]
    assert scim.get(f"/Users/{user['id']}").get_json()["userName"] == "test.user@okta.local"

    # Profile push: Okta PUTs the whole user, id included.
    pushed = {
        **OKTA_USER,
        "id": user["id"],
        "name": {"givenName": "Tess", "familyName": "User"},
        "displayName": "Tess User",
    }
    resp = scim.put(f"/Users/{user['id']}", pushed)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["name"]["givenName"] == "Tess"

    deactivate = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "value": {"active": False}}],
    }
    resp = scim.request("PATCH", f"/Users/{user['id']}", deactivate)
    assert resp.status_code == 200 and resp.get_json()["active"] is False
    assert member_state(app, scim.org.org_id, "test.user@okta.local") == (False, "member")

    resp = scim.patch(f"/Users/{user['id']}", [{"op": "replace", "value": {"active": True}}])
    assert resp.status_code == 200 and resp.get_json()["active"] is True
    assert member_state(app, scim.org.org_id, "test.user@okta.local") == (True, "member")

    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "replace", "value": {"password": "t1meMa$heen"}}]
    )
    assert resp.status_code == 200 and "password" not in resp.get_json()

    assert event_kinds(app, scim.org.org_id) == [
        "scim.user.provisioned",
        "scim.user.deactivated",
        "scim.user.reactivated",
    ]


def test_okta_custom_app_deactivates_with_put(app, scim):
    user = scim.create("put.user@okta.local")
    resp = scim.put(
        f"/Users/{user['id']}", {**OKTA_USER, "userName": "put.user@okta.local", "active": False}
    )
    assert resp.status_code == 200 and resp.get_json()["active"] is False
    assert member_state(app, scim.org.org_id, "put.user@okta.local") == (False, "member")
