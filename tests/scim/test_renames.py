"""userName renames (docs/scim.md#renames): Entra ID sends ``replace userName`` when a
UPN changes. Accepted for an account this org's SCIM alone manages, to an address on
one of the org's verified domains: the account's email follows (so does sign-in, which
finds the account by it). Otherwise 400 invalidValue or 409 uniqueness, saying why."""

from __future__ import annotations

from tests.scim.conftest import USER, assert_scim_error, event_kinds, member_state


def _account_id(app, email: str):
    from workspace.core.accounts import find_account

    with app.app_context():
        account = find_account(email)
        return account.id if account else None


def test_patch_replace_username_renames_the_account(app, scim):
    user = scim.create("old.name@acme.test", displayName="Old Name")
    account = _account_id(app, "old.name@acme.test")
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "Replace", "path": "userName", "value": "New.Name@corp.test"}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["userName"] == "New.Name@corp.test"
    assert resp.get_json()["id"] == user["id"]
    # The account (and so every way of signing in to it) now has the new address.
    assert _account_id(app, "new.name@corp.test") == account
    assert _account_id(app, "old.name@acme.test") is None
    assert member_state(app, scim.org.org_id, "new.name@corp.test") == (True, "member")
    found = scim.get('/Users?filter=userName eq "new.name@corp.test"').get_json()
    assert [r["id"] for r in found["Resources"]] == [user["id"]]
    assert (
        scim.get('/Users?filter=userName eq "old.name@acme.test"').get_json()["totalResults"] == 0
    )
    assert event_kinds(app, scim.org.org_id)[-1] == "scim.user.renamed"
    from workspace.core.events import list_events

    with app.app_context():
        event = list_events(scim.org.org_id, kind_prefix="scim.user.renamed")[0]
    assert event.data["old_email"] == "old.name@acme.test"
    assert event.subject == "new.name@corp.test"


def test_put_with_a_new_username_renames(app, scim):
    user = scim.create("put.old@acme.test")
    resp = scim.put(f"/Users/{user['id']}", {"schemas": [USER], "userName": "put.new@acme.test"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert member_state(app, scim.org.org_id, "put.new@acme.test") == (True, "member")


def test_entra_upn_change_with_emails(app, scim):
    """Entra's userName is the UPN; the account's address is the work email."""
    user = scim.create(
        "upn-old@acme.test",
        emails=[{"type": "work", "primary": True, "value": "upn-old@acme.test"}],
    )
    resp = scim.patch(
        f"/Users/{user['id']}",
        [
            {"op": "Replace", "path": "userName", "value": "upn-new@acme.test"},
            {"op": "Replace", "path": 'emails[type eq "work"].value', "value": "upn-new@acme.test"},
        ],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert member_state(app, scim.org.org_id, "upn-new@acme.test") == (True, "member")


def test_rename_to_an_unverified_domain_is_refused(app, scim):
    user = scim.create("stay@acme.test")
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "replace", "path": "userName", "value": "x@elsewhere.test"}]
    )
    detail = assert_scim_error(resp, 400, "invalidValue")["detail"]
    assert "verified" in detail and "elsewhere.test" in detail
    assert member_state(app, scim.org.org_id, "stay@acme.test") == (True, "member")
    assert "scim.user.renamed" not in event_kinds(app, scim.org.org_id)


def test_rename_to_a_taken_address_is_a_conflict(app, scim):
    from tests.conftest import add_person

    add_person(app, scim.org.org_id, "taken@acme.test")
    user = scim.create("mover@acme.test")
    resp = scim.put(f"/Users/{user['id']}", {"schemas": [USER], "userName": "taken@acme.test"})
    assert "taken@acme.test" in assert_scim_error(resp, 409, "uniqueness")["detail"]
    other = scim.create("other@acme.test")
    resp = scim.patch(
        f"/Users/{other['id']}",
        [{"op": "replace", "path": "userName", "value": "MOVER@acme.test"}],
    )
    assert_scim_error(resp, 409, "uniqueness")
    assert member_state(app, scim.org.org_id, "mover@acme.test") == (True, "member")


def test_rename_of_an_account_with_a_life_elsewhere_is_refused(app, scim, globex):
    """A password of its own, a membership in another org, or a member SCIM did not
    create: this org's IdP does not rename it."""
    from tests.conftest import add_person
    from workspace.core import accounts
    from workspace.core.models import Account, Org, OrgRole
    from workspace.extensions import db

    shared = scim.create("shared@acme.test")
    with app.app_context():
        account = db.session.get(Account, _account_id(app, "shared@acme.test"))
        accounts.add_member(db.session.get(Org, globex.org_id), account, OrgRole.MEMBER)
        db.session.commit()
    resp = scim.patch(
        f"/Users/{shared['id']}",
        [{"op": "replace", "path": "userName", "value": "shared2@acme.test"}],
    )
    assert "another organization" in assert_scim_error(resp, 400, "invalidValue")["detail"]

    add_person(app, scim.org.org_id, "local@acme.test")  # has a password, no SCIM link
    [local] = scim.get('/Users?filter=userName eq "local@acme.test"').get_json()["Resources"]
    resp = scim.put(f"/Users/{local['id']}", {"schemas": [USER], "userName": "local2@acme.test"})
    assert "password" in assert_scim_error(resp, 400, "invalidValue")["detail"]
    assert member_state(app, scim.org.org_id, "local@acme.test") == (True, "member")
    assert member_state(app, scim.org.org_id, "shared@acme.test") == (True, "member")


def test_rename_to_another_orgs_domain_is_refused_even_with_the_rule_lifted(
    app, scim, globex, monkeypatch
):
    from tests.factories import verify_domains

    verify_domains(app, globex.org_id, "globex-owned.test")
    monkeypatch.setitem(app.config, "SCIM_REQUIRE_VERIFIED_DOMAIN", False)
    user = scim.create("leaver@acme.test")
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "replace", "path": "userName", "value": "leaver@globex-owned.test"}],
    )
    assert "another organization" in assert_scim_error(resp, 400, "invalidValue")["detail"]
    # With the operator's switch off, an unclaimed domain is accepted, as provisioning is.
    resp = scim.patch(
        f"/Users/{user['id']}",
        [{"op": "replace", "path": "userName", "value": "leaver@unclaimed.test"}],
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert member_state(app, scim.org.org_id, "leaver@unclaimed.test") == (True, "member")
