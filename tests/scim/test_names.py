"""Given and family names (docs/scim.md#names): every listed user carries both, as
Okta's SCIM 2.0 spec test asks, and a PATCH of one part carries ``name.formatted``,
``displayName`` and the account's display name with it."""

from __future__ import annotations

import pytest

from tests.factories import add_person
from tests.scim.conftest import USER, assert_scim_error


def _account(app, email: str) -> tuple[str, str | None, str | None]:
    from workspace.core.accounts import find_account

    with app.app_context():
        account = find_account(email)
        return account.name, account.given_name, account.family_name


def _listed_names(scim) -> dict[str, tuple[str, str]]:
    body = scim.get("/Users").get_json()
    return {
        r["userName"]: (r["name"].get("givenName"), r["name"].get("familyName"))
        for r in body["Resources"]
    }


def test_every_listed_user_has_a_given_and_a_family_name(app, scim):
    """The founding owner, a password member with a one-word name, a directory or SSO
    sign-in that brought its parts, and a SCIM user sent with a formatted name only."""
    from workspace.auth.login import provision_member
    from workspace.core.accounts import add_member
    from workspace.core.models import Account, AccountKind, Org
    from workspace.extensions import db

    add_person(app, scim.org.org_id, "bob@acme.test")  # named "Bob"
    with app.app_context():
        org = db.session.get(Org, scim.org.org_id)
        provision_member(
            org,
            "jd@acme.test",
            "Jan van der Berg",
            via="ldap",
            given_name="Jan",
            family_name="van der Berg",
        )
        agent = Account(email="bot@agents.test", name="Build Bot", kind=AccountKind.AGENT)
        db.session.add(agent)
        db.session.flush()
        add_member(org, agent)
        db.session.commit()
    scim.create("grace@example.test", name={"formatted": "Grace Brewster Hopper"})

    listed = _listed_names(scim)
    assert listed == {
        "owner@acme.test": ("Acme", "Owner"),
        "bob@acme.test": ("Bob", "Bob"),
        "jd@acme.test": ("Jan", "van der Berg"),
        "grace@example.test": ("Grace", "Brewster Hopper"),
    }  # and agents are not SCIM users
    # A page of one, as Okta's test reads Resources[0]: the founding owner.
    [first] = scim.get("/Users?startIndex=1&count=1").get_json()["Resources"]
    assert first["name"] == {"givenName": "Acme", "familyName": "Owner", "formatted": "Acme Owner"}


def test_parts_a_source_supplied_are_stored_and_kept_as_given(app, scim):
    """Stored parts win over a split of the display name, which would read "Mary"
    and "Jane Watson" here."""
    from workspace.core.accounts import ensure_account
    from workspace.extensions import db

    user = scim.create(
        "mj@example.test",
        name={"givenName": "Mary Jane", "familyName": "Watson"},
        displayName="MJ",
    )
    assert user["name"] == {"givenName": "Mary Jane", "familyName": "Watson"}
    assert _account(app, "mj@example.test") == ("MJ", "Mary Jane", "Watson")
    with app.app_context():
        ensure_account("mj@example.test", "Someone Else", given_name="X", family_name="Y")
        db.session.commit()
    assert _account(app, "mj@example.test") == ("MJ", "Mary Jane", "Watson")  # reused as is


ENTRA_USER = {
    "schemas": [USER],
    "userName": "ada@example.test",
    "externalId": "entra-object-id",
    "displayName": "Ada Lovelace",
    "name": {"givenName": "Ada", "familyName": "Lovelace"},
}


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "Replace", "value": {"name.givenName": "Augusta"}},  # Entra's path-less form
        {"op": "Replace", "path": "name.givenName", "value": "Augusta"},
        {"op": "replace", "path": "name", "value": {"givenName": "Augusta"}},
        {"op": "replace", "value": {"name": {"givenName": "Augusta"}}},
        {
            "op": "replace",
            "path": "urn:ietf:params:scim:schemas:core:2.0:User:name.givenName",
            "value": "Augusta",
        },
    ],
    ids=["entra-dotted", "path", "name-object", "pathless-object", "urn-path"],
)
def test_a_patched_given_name_carries_formatted_and_the_display_name(app, scim, operation):
    user = scim.post("/Users", ENTRA_USER).get_json()
    resp = scim.patch(f"/Users/{user['id']}", [operation])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["name"] == {
        "givenName": "Augusta",
        "familyName": "Lovelace",
        "formatted": "Augusta Lovelace",
    }
    assert body["displayName"] == "Augusta Lovelace"
    assert scim.get(f"/Users/{user['id']}").get_json() == body
    assert _account(app, "ada@example.test") == ("Augusta Lovelace", "Augusta", "Lovelace")


def test_a_display_name_or_formatted_sent_in_the_same_request_wins(app, scim):
    user = scim.post("/Users", ENTRA_USER).get_json()
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "Replace", "value": {"name.familyName": "King", "displayName": "Ada, Countess"}}],
    )
    body = resp.get_json()
    assert body["displayName"] == "Ada, Countess"
    assert body["name"]["formatted"] == "Ada King"
    assert _account(app, "ada@example.test") == ("Ada, Countess", "Ada", "King")

    resp = scim.patch(
        f"/Users/{user['id']}",
        [
            {"op": "replace", "path": "name.familyName", "value": "Byron"},
            {"op": "replace", "path": "name.formatted", "value": "Lady Ada Byron"},
        ],
    )
    body = resp.get_json()
    assert body["name"]["formatted"] == "Lady Ada Byron"
    assert body["displayName"] == "Lady Ada Byron"  # follows the name the IdP gave
    assert _account(app, "ada@example.test") == ("Lady Ada Byron", "Ada", "Byron")


def test_patching_something_else_leaves_the_names_alone(app, scim):
    user = scim.create("n@example.test", name={"givenName": "Nick", "familyName": "Name"})
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "replace", "path": "displayName", "value": "Nicky"}]
    )
    body = resp.get_json()
    assert body["displayName"] == "Nicky" and "formatted" not in body["name"]
    assert _account(app, "n@example.test") == ("Nicky", "Nick", "Name")


def test_put_stores_the_parts_on_the_account_scim_created(app, scim):
    user = scim.create("okta@example.test", name={"givenName": "Test", "familyName": "User"})
    assert _account(app, "okta@example.test") == ("Test User", "Test", "User")
    body = {
        "schemas": [USER],
        "userName": "okta@example.test",
        "name": {"givenName": "Tess", "familyName": "Usher"},
        "displayName": "Tess Usher",
    }
    resp = scim.put(f"/Users/{user['id']}", body)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert _account(app, "okta@example.test") == ("Tess Usher", "Tess", "Usher")
    # A PUT without any name leaves the account's names as they are.
    scim.put(f"/Users/{user['id']}", {"schemas": [USER], "userName": "okta@example.test"})
    assert _account(app, "okta@example.test") == ("Tess Usher", "Tess", "Usher")


def test_an_account_scim_did_not_create_keeps_its_names(app, scim):
    """The founding owner's SCIM document follows the IdP; their account does not."""
    [owner] = scim.get('/Users?filter=userName eq "owner@acme.test"').get_json()["Resources"]
    resp = scim.patch(
        f"/Users/{owner['id']}", [{"op": "replace", "path": "name.givenName", "value": "Boss"}]
    )
    body = resp.get_json()
    assert body["name"] == {"givenName": "Boss", "familyName": "Owner", "formatted": "Boss Owner"}
    assert body["displayName"] == "Boss Owner"
    assert _account(app, "owner@acme.test") == ("Acme Owner", None, None)


def test_a_user_whose_idp_removed_the_name_has_none(scim):
    """RFC 7644 §3.5.2.2: a removed attribute is gone (scim2-tester checks it)."""
    user = scim.create("gone@example.test", name={"givenName": "Gone", "familyName": "Soon"})
    resp = scim.patch(f"/Users/{user['id']}", [{"op": "remove", "path": "name"}])
    assert resp.status_code == 200 and "name" not in resp.get_json()


def test_a_name_part_over_200_characters_is_refused(scim):
    body = {"schemas": [USER], "userName": "long@example.test", "name": {"givenName": "Ada"}}
    user = scim.post("/Users", body).get_json()
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "Replace", "value": {"name.familyName": "L" * 201}}]
    )
    assert "name.familyName" in assert_scim_error(resp, 400, "invalidValue")["detail"]
