"""SCIM obeys the identity trust rule of SSO and LDAP
(docs/security.md#identity-trust-and-account-linking): a token provisions only emails
on its org's verified domains, and never takes over or renames an account that has a
life of its own."""

from __future__ import annotations

from sqlalchemy import select

from tests.conftest import add_person
from tests.scim.conftest import USER, assert_scim_error, member_state, verify_domains


def _account(app, email):
    from workspace.core.accounts import find_account

    with app.app_context():
        account = find_account(email)
        return None if account is None else (account.name, account.email)


def test_token_cannot_provision_an_email_on_another_orgs_verified_domain(app, scim, globex):
    verify_domains(app, globex.org_id, "globex.test")
    add_person(app, globex.org_id, "victim@globex.test")
    body = {
        "schemas": [USER],
        "userName": "victim@globex.test",
        "displayName": "Fired - do not trust",
    }
    detail = assert_scim_error(scim.post("/Users", body), 403)["detail"]
    assert "globex.test" in detail and "verified" in detail
    assert member_state(app, scim.org.org_id, "victim@globex.test") is None
    assert _account(app, "victim@globex.test") == ("Victim", "victim@globex.test")


def test_token_cannot_provision_an_email_on_an_unverified_domain(app, scim):
    body = {"schemas": [USER], "userName": "someone@nobody-verified.test"}
    assert_scim_error(scim.post("/Users", body), 403)
    body = {"schemas": [USER], "userName": "plain", "emails": [{"value": "x@unverified.test"}]}
    assert_scim_error(scim.post("/Users", body), 403)
    assert _account(app, "someone@nobody-verified.test") is None
    assert _account(app, "x@unverified.test") is None


def test_existing_account_of_another_org_is_refused_not_renamed(app, scim, globex):
    """On Acme's own verified domain, an account that belongs to Globex (and has a
    password) is not Acme's SCIM's to add: 409, nothing changed."""
    add_person(app, globex.org_id, "shared@example.test")
    body = {"schemas": [USER], "userName": "shared@example.test", "displayName": "Renamed"}
    detail = assert_scim_error(scim.post("/Users", body), 409)["detail"]
    assert "single sign-on" in detail
    assert member_state(app, scim.org.org_id, "shared@example.test") is None
    assert _account(app, "shared@example.test") == ("Shared", "shared@example.test")


def test_owner_anywhere_is_refused(app, scim):
    from tests.conftest import make_org

    make_org(app, "Initech", "boss@example.test")
    body = {"schemas": [USER], "userName": "boss@example.test"}
    assert_scim_error(scim.post("/Users", body), 409)
    assert member_state(app, scim.org.org_id, "boss@example.test") is None


def test_scim_never_renames_the_global_account(app, scim):
    """What SCIM stores about a user (names, emails) stays in the org's SCIM record:
    the account's global name and email are the person's."""
    from workspace.core.accounts import ensure_account
    from workspace.extensions import db

    with app.app_context():
        ensure_account("bare@example.test", "Bare Person")
        db.session.commit()
    user = scim.create("bare@example.test", displayName="Other Name")
    resp = scim.put(
        f"/Users/{user['id']}",
        {
            "schemas": [USER],
            "userName": "bare@example.test",
            "displayName": "Fired - do not trust",
            "emails": [{"value": "elsewhere@example.test", "type": "work"}],
        },
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "replace", "path": "displayName", "value": "Patched"}]
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert _account(app, "bare@example.test") == ("Bare Person", "bare@example.test")


def test_accounts_scim_created_are_linked_and_stay_manageable(app, scim):
    """An account the org's SCIM created is linked to it, so provisioning it again
    after a deprovisioning works as before."""
    from workspace.auth.models import AccountIdentityLink
    from workspace.extensions import db

    user = scim.create("new@example.test")
    with app.app_context():
        links = db.session.scalars(select(AccountIdentityLink.source)).all()
        assert links == ["scim"]
    assert scim.delete(f"/Users/{user['id']}").status_code == 204
    scim.create("new@example.test")
    assert member_state(app, scim.org.org_id, "new@example.test") == (True, "member")


def test_only_the_operator_lifts_the_domain_rule(tmp_path, monkeypatch):
    """The switch is server configuration read from the environment, on by default."""
    from workspace.config import load_config

    monkeypatch.delenv("SCIM_REQUIRE_VERIFIED_DOMAIN", raising=False)
    assert load_config(str(tmp_path))["SCIM_REQUIRE_VERIFIED_DOMAIN"] is True
    monkeypatch.setenv("SCIM_REQUIRE_VERIFIED_DOMAIN", "false")
    assert load_config(str(tmp_path))["SCIM_REQUIRE_VERIFIED_DOMAIN"] is False
