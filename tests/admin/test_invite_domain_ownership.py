"""Invitations respect domain ownership (docs/security.md#verified-domains-own-their-addresses):
an org cannot squat another org's future member through an invitation, and an account
whose address was never proven is not taken as "the person's own" by the org that
verified the address's domain."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import select

from tests.factories import PASSWORD, add_person, login, make_org, verify_domains
from workspace.extensions import db


def _invite(client, org, email, **body):
    return client.post(org.url("/invitations"), json={"email": email, **body}, headers=org.headers)


def _path(url: str) -> str:
    return urlsplit(url).path


def _account(app, email):
    from workspace.core.models import Account

    with app.app_context():
        return db.session.scalar(select(Account).where(Account.email == email))


def _set_verified(app, email: str, verified: bool) -> None:
    from workspace.core.models import Account

    with app.app_context():
        account = db.session.scalar(select(Account).where(Account.email == email))
        account.email_verified = verified
        db.session.commit()


def _squat(app, client, squatter_org, email: str, password: str) -> None:
    """Another org's admin invites the address, opens the link and sets a password."""
    url = _invite(client, squatter_org, email).get_json()["sign_in_url"]
    resp = app.test_client().post(_path(url), data={"password": password})
    assert resp.status_code == 302


def test_another_orgs_verified_domain_cannot_be_invited_into_an_account(app, client, acme):
    verify_domains(app, acme.org_id, "acme.test")
    squatter = make_org(app, "Squat", "admin@squat.test")
    resp = _invite(client, squatter, "newhire@acme.test")
    assert resp.status_code == 403
    assert "a domain another organization has verified" in resp.get_json()["detail"]
    assert _account(app, "newhire@acme.test") is None
    # The page's form says the same.
    login(client, squatter.owner_email)
    page = client.post("/o/squat/settings/members/invite", data={"email": "newhire@acme.test"})
    assert page.status_code == 403 and "another organization has verified" in page.get_data(
        as_text=True
    )


def test_a_squat_made_before_the_domain_was_verified_does_not_reach_the_org(app, client, acme):
    squatter = make_org(app, "Squat", "admin@squat.test")
    _squat(app, client, squatter, "newhire@acme.test", "squatters-password")
    verify_domains(app, acme.org_id, "acme.test")

    body = _invite(client, acme, "newhire@acme.test").get_json()
    assert body["member"] is None and body["sign_in_url"]  # a join link, no membership
    assert "never proved" in body["message"]

    # The squatter signs in with the password they chose: Acme stays closed.
    squat_browser = app.test_client()
    login(squat_browser, "newhire@acme.test", "squatters-password")
    assert squat_browser.get("/o/acme/").status_code == 404
    # Whoever has the link (the real mailbox) but not the account joins nothing.
    stranger = app.test_client()
    page = stranger.get(_path(body["sign_in_url"])).get_data(as_text=True)
    assert "Sign in to join" in page
    resp = stranger.post(_path(body["sign_in_url"]))
    assert resp.status_code == 401
    assert squat_browser.get("/o/acme/").status_code == 404
    assert _account(app, "newhire@acme.test").email_verified is False


def test_an_account_that_proves_both_joins_with_the_join_link(app, client, acme):
    """Someone at another org with a password, invited by the org that verified their
    address: they open the join link signed in to their account, and join."""
    other = make_org(app, "Globex", "owner@globex.test")
    add_person(app, other.org_id, "pat@acme.test")  # has a password
    _set_verified(app, "pat@acme.test", False)  # as another org's invitation leaves it
    verify_domains(app, acme.org_id, "acme.test")
    body = _invite(client, acme, "pat@acme.test", role="admin").get_json()
    assert body["member"] is None

    browser = app.test_client()
    login(browser, "pat@acme.test", PASSWORD)
    page = browser.get(_path(body["sign_in_url"])).get_data(as_text=True)
    assert "You are signed in as pat@acme.test" in page
    resp = browser.post(_path(body["sign_in_url"]))
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/o/acme/")
    assert browser.get("/o/acme/").status_code == 200
    assert _account(app, "pat@acme.test").email_verified is True
    # Once only.
    assert browser.post(_path(body["sign_in_url"])).status_code == 410


def test_a_proven_account_of_another_orgs_domain_joins_without_a_link(app, client, acme):
    verify_domains(app, acme.org_id, "acme.test")
    globex = make_org(app, "Globex", "owner@globex.test")
    add_person(app, acme.org_id, "sam@acme.test")
    _set_verified(app, "sam@acme.test", True)  # as Acme's SSO, directory or SCIM marks it
    body = _invite(client, globex, "sam@acme.test").get_json()
    assert body["member"]["active"] is True and body["sign_in_url"] is None


def test_the_verifying_orgs_own_link_proves_the_address(app, client, acme):
    verify_domains(app, acme.org_id, "acme.test")
    url = _invite(client, acme, "fresh@acme.test").get_json()["sign_in_url"]
    assert app.test_client().post(_path(url), data={}).status_code == 302
    assert _account(app, "fresh@acme.test").email_verified is True
