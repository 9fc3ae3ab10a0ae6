"""The account-link confirmation page and the linking rule
(docs/security.md#identity-trust-and-account-linking)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from tests.factories import PASSWORD, login
from workspace.extensions import db


def _pending(app, email: str, org_id, source: str = "sso") -> str:
    """A pending link as an SSO sign-in would leave it; returns the raw token."""
    from workspace.auth import linking
    from workspace.core.accounts import find_account
    from workspace.core.models import Org

    with app.test_request_context():
        exc = linking.request_link(
            find_account(email), db.session.get(Org, org_id), source, "/o/acme/projects"
        )
        return exc.raw


def _browser(app, raw: str):
    browser = app.test_client()
    browser.set_cookie("ws_link", raw, path="/signin/link")
    return browser


def _links(app, email):
    from workspace.auth.models import AccountIdentityLink
    from workspace.core.models import Account

    with app.app_context():
        return db.session.scalars(
            select(AccountIdentityLink.source)
            .join(Account, Account.id == AccountIdentityLink.account_id)
            .where(Account.email == email)
        ).all()


def test_holder_who_signs_in_again_confirms_without_a_password(app, acme, globex):
    """Signed in again as the very account after the link was requested (here with a
    password, as any other method would), the holder just confirms; the pending
    sign-in then completes."""
    browser = _browser(app, _pending(app, globex.owner_email, acme.org_id))
    login(browser, globex.owner_email)
    page = browser.get("/signin/link").get_data(as_text=True)
    assert "You signed in again as owner@globex.test" in page
    assert "Acme's administrators control this single sign-on" in page
    resp = browser.post("/signin/link", data={"action": "confirm"})
    assert resp.status_code == 302 and resp.location == "/o/acme/projects"
    assert browser.get("/o/acme/").status_code == 200
    assert _links(app, globex.owner_email) == ["sso"]


def test_a_session_open_before_the_request_is_not_one_click(app, acme, globex):
    """An admin who points SSO at an IdP they control asserts the owner's email; the
    owner, signed in already, is lured through it. Without a fresh proof of the
    account's own credential the confirmation is refused, and nothing is linked."""
    browser = _browser(app, "")
    login(browser, globex.owner_email)  # signed in earlier, with their usual method
    browser.set_cookie(
        "ws_link", _pending(app, globex.owner_email, acme.org_id), path="/signin/link"
    )
    page = browser.get("/signin/link").get_data(as_text=True)
    assert 'name="password"' in page and "You signed in again" not in page
    assert browser.post("/signin/link", data={"action": "confirm"}).status_code == 401
    assert _links(app, globex.owner_email) == []
    resp = browser.post("/signin/link", data={"action": "confirm", "password": PASSWORD})
    assert resp.status_code == 302 and _links(app, globex.owner_email) == ["sso"]


def test_signed_in_as_someone_else_is_not_enough(app, acme, globex):
    browser = _browser(app, _pending(app, globex.owner_email, acme.org_id))
    login(browser, acme.owner_email)  # the org's admin, in their own browser
    assert browser.post("/signin/link", data={"action": "confirm"}).status_code == 401
    assert _links(app, globex.owner_email) == []


def test_declining_or_expiry_links_nothing(app, acme, globex):
    from workspace.auth.models import PendingIdentityLink
    from workspace.types import utcnow

    raw = _pending(app, globex.owner_email, acme.org_id)
    resp = _browser(app, raw).post("/signin/link", data={"action": "cancel"})
    assert resp.status_code == 302
    # Used once: the same token no longer confirms anything.
    again = _browser(app, raw)
    assert again.post("/signin/link", data={"password": PASSWORD}).status_code == 400

    raw = _pending(app, globex.owner_email, acme.org_id)
    with app.app_context():
        for row in db.session.scalars(select(PendingIdentityLink)):
            row.expires_at = utcnow() - timedelta(seconds=1)
        db.session.commit()
    expired = _browser(app, raw)
    assert expired.get("/signin/link").status_code == 400
    assert expired.post("/signin/link", data={"password": PASSWORD}).status_code == 400
    assert _links(app, globex.owner_email) == []


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ("password", "password"),
        ("owner", "owner"),
        ("other_org", "other_org"),
        ("other_source", "other_source"),
        ("bare", None),
    ],
)
def test_who_must_confirm(app, acme, globex, setup, reason):
    from workspace.auth import linking
    from workspace.core.accounts import add_member, ensure_account, find_account
    from workspace.core.models import Org

    with app.app_context():
        account = ensure_account("p@acme.test", "P")
        if setup == "password":
            from workspace.auth.passwords import set_password

            set_password(account, PASSWORD)
        elif setup == "owner":
            add_member(db.session.get(Org, acme.org_id), account, "owner")
        elif setup == "other_org":
            add_member(db.session.get(Org, globex.org_id), account)
        elif setup == "other_source":
            linking.link(account, globex.org_id, "ldap")
        db.session.commit()
        assert linking.held_elsewhere(find_account("p@acme.test"), acme.org_id) == reason


def test_agents_are_never_linked(app, acme):
    from workspace.auth import linking
    from workspace.core.models import Account, AccountKind

    with app.app_context():
        agent = Account(email="bot@acme.test", name="Bot", kind=AccountKind.AGENT)
        db.session.add(agent)
        db.session.flush()
        assert linking.held_elsewhere(agent, acme.org_id) == "agent"
