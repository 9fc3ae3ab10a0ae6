"""SSO and existing accounts (docs/security.md#identity-trust-and-account-linking):
the org's IdP signs in an existing account only once its holder has linked it."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories import PASSWORD, make_org
from workspace.core.models import Account, OrgMember
from workspace.extensions import db


def _memberships(app, email):
    with app.app_context():
        account = db.session.scalar(select(Account).where(Account.email == email))
        rows = db.session.scalars(select(OrgMember).where(OrgMember.account_id == account.id))
        return sorted((str(m.org_id), m.role) for m in rows)


def test_idp_user_with_an_owners_email_waits_for_the_owners_password(app, sso):
    """Acme's IdP asserts the email of Initech's owner: no session as the owner, no
    Acme membership, until the owner confirms with their own password."""
    initech = make_org(app, "Initech", "boss@acme.test")
    browser = app.test_client()
    resp = sso.sign_in(browser, "boss-sub", email="boss@acme.test", email_verified=True)
    assert resp.status_code == 302 and resp.location == "/signin/link"
    assert browser.get("/o/initech/").status_code == 302
    assert _memberships(app, "boss@acme.test") == [(str(initech.org_id), "owner")]
    page = browser.get("/signin/link").get_data(as_text=True)
    assert "Link your account to Acme" in page and "single sign-on" in page

    # Another browser (the IdP admin's) cannot confirm what this one started.
    stranger = app.test_client()
    assert stranger.post("/signin/link", data={"password": PASSWORD}).status_code == 400

    resp = browser.post("/signin/link", data={"password": PASSWORD})
    assert resp.status_code == 302 and resp.location == f"/o/{sso.org.slug}/"
    assert browser.get(f"/o/{sso.org.slug}/").status_code == 200
    assert _memberships(app, "boss@acme.test") == sorted(
        [(str(initech.org_id), "owner"), (str(sso.org.org_id), "member")]
    )
    # Linked: the next SSO sign-in goes straight through.
    again = app.test_client()
    resp = sso.sign_in(again, "boss-sub")
    assert resp.status_code == 302 and resp.location.endswith(f"/o/{sso.org.slug}/")


def test_member_of_another_org_without_password_is_asked_too(app, client, sso):
    """An account another org's source created (no password) is not Acme's to take."""
    from tests.factories import add_person

    globex = make_org(app, "Globex", "owner@globex.test")
    add_person(app, globex.org_id, "carol@acme.test")
    with app.app_context():
        account = db.session.scalar(select(Account).where(Account.email == "carol@acme.test"))
        account.password_hash = None
        db.session.commit()
    browser = app.test_client()
    resp = sso.sign_in(browser, "carol-sub", email="carol@acme.test", email_verified=True)
    assert resp.status_code == 302 and resp.location == "/signin/link"
    assert _memberships(app, "carol@acme.test") == [(str(globex.org_id), "member")]


def test_bare_account_and_new_people_sign_in_as_before(app, sso):
    """An account with no other way in and no other org is linked on first use; a
    new person is created and linked (just-in-time, as before)."""
    from workspace.core.accounts import ensure_account

    with app.app_context():
        ensure_account("dana@acme.test", "Dana")
        db.session.commit()
    for sub, email in (("dana-sub", "dana@acme.test"), ("erin-sub", "erin@acme.test")):
        browser = app.test_client()
        resp = sso.sign_in(browser, sub, email=email, email_verified=True)
        assert resp.status_code == 302 and resp.location.endswith(f"/o/{sso.org.slug}/")
        assert browser.get(f"/o/{sso.org.slug}/").status_code == 200
