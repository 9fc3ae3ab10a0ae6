"""Invitations: POST /invitations and the Members page's invite form, and the one-time
link end to end with the real session (works once, expires, tampered, password)."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from urllib.parse import urlsplit

from sqlalchemy import select

from tests.factories import add_person, assert_problem, login, make_org, rate_limited_app
from workspace.extensions import db, limiter

UNUSABLE = "This link cannot be used."


def _invite(client, org, headers=None, **body):
    body.setdefault("email", "new@acme.test")
    return client.post(org.url("/invitations"), json=body, headers=headers or org.headers)


def _path(url: str) -> str:
    return urlsplit(url).path


def _events(app, org_id, kind):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(select(Event).where(Event.org_id == org_id, Event.kind == kind))
        return [(e.actor_id, e.subject, dict(e.data or {})) for e in rows]


def _account(app, email):
    from workspace.core.models import Account

    with app.app_context():
        return db.session.scalar(select(Account).where(Account.email == email))


def test_invite_makes_account_membership_and_a_one_time_link(app, client, acme):
    resp = _invite(client, acme, email="  New.Person@ACME.test ", name="New Person", role="admin")
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert body["member"]["account"]["email"] == "new.person@acme.test"  # canonical
    assert body["member"]["role"] == "admin" and body["member"]["joined_via"] == "invite"
    assert body["sign_in_url"].startswith("http://localhost/invite/")
    token = _path(body["sign_in_url"]).rsplit("/", 1)[1]
    from workspace.auth.models import SignInLink
    from workspace.security.tokens import digest

    with app.app_context():
        link = db.session.scalar(select(SignInLink))
        assert link.token_hash == digest(token) and token not in link.token_hash
        assert timedelta(hours=71) < link.expires_at - link.created_at <= timedelta(hours=72)
    ((actor, subject, data),) = _events(app, acme.org_id, "member.invited")
    assert (actor, subject, data["role"], data["link"]) == (
        acme.owner_id,
        "new.person@acme.test",
        "admin",
        True,
    )


def test_link_joins_once_with_a_real_session_and_sets_the_password(app, client, acme):
    url = _invite(client, acme, name="Nina").get_json()["sign_in_url"]
    page = client.get(_path(url))
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Join Acme as new@acme.test" in html
    assert page.headers["Referrer-Policy"] == "no-referrer"

    short = client.post(_path(url), data={"password": "short"})
    assert short.status_code == 400 and "at least 10 characters" in short.get_data(as_text=True)
    assert client.get(_path(url)).status_code == 200  # a refused try used nothing

    joined = client.post(_path(url), data={"password": "a-fine-long-password"})
    assert joined.status_code == 302 and joined.headers["Location"].endswith("/o/acme/")
    home = client.get(f"/o/{acme.slug}/")
    assert home.status_code == 200 and "Welcome to Acme" in home.get_data(as_text=True)

    again = app.test_client().get(_path(url))
    assert again.status_code == 410 and UNUSABLE in again.get_data(as_text=True)
    assert app.test_client().post(_path(url), data={}).status_code == 410

    from workspace.auth.models import AuthSession

    with app.app_context():
        assert db.session.scalar(select(AuthSession.method)) == "invite"
    used = _events(app, acme.org_id, "member.invite_used")
    assert used[0][1] == "new@acme.test" and used[0][2]["password_set"] is True
    assert _events(app, acme.org_id, "auth.login")[-1][2]["method"] == "invite"
    # The chosen password works on the ordinary sign-in form.
    fresh = app.test_client()
    login(fresh, "new@acme.test", "a-fine-long-password")


def test_joining_without_a_password_keeps_none(app, client, acme):
    url = _invite(client, acme).get_json()["sign_in_url"]
    assert client.post(_path(url), data={"password": ""}).status_code == 302
    assert _account(app, "new@acme.test").password_hash is None


def test_expired_tampered_and_unknown_links_are_refused_alike(app, client, acme):
    from workspace.auth.models import SignInLink
    from workspace.types import utcnow

    url = _invite(client, acme).get_json()["sign_in_url"]
    token = _path(url).rsplit("/", 1)[1]
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    pages = [client.get(f"/invite/{tampered}"), client.get("/invite/nothing-like-a-token")]
    pages.append(client.get("/invite/" + "x" * 500))
    with app.app_context():
        db.session.scalar(select(SignInLink)).expires_at = utcnow() - timedelta(seconds=1)
        db.session.commit()
    pages += [client.get(_path(url)), client.post(_path(url), data={"password": "long-enough-pw"})]
    bodies = set()
    for resp in pages:
        assert resp.status_code == 410
        body = resp.get_data(as_text=True)
        assert UNUSABLE in body and "Ask the person who invited you" in body
        # The CSRF token is signed with the time, so two pages a second apart differ.
        body = re.sub(r'name="csrf_token" value="[^"]*"', "", body)
        bodies.add(re.sub(r'"X-CSRFToken": "[^"]*"', "", body))
    assert len(bodies) == 1  # nothing tells an expired link from an unknown one
    assert _account(app, "new@acme.test").password_hash is None


def test_a_deactivated_membership_makes_the_link_unusable(app, client, acme):
    body = _invite(client, acme).get_json()
    client.patch(
        acme.url(f"/members/{body['member']['id']}"), json={"active": False}, headers=acme.headers
    )
    assert client.get(_path(body["sign_in_url"])).status_code == 410


def test_two_tabs_one_wins(app, client, acme):
    url = _invite(client, acme).get_json()["sign_in_url"]
    results = []

    def join():
        results.append(app.test_client().post(_path(url), data={}).status_code)

    threads = [threading.Thread(target=join) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [302, 410]
    assert len(_events(app, acme.org_id, "member.invite_used")) == 1


def test_existing_and_deactivated_members(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    resp = _invite(client, acme, email="ANN@acme.test")
    assert_problem(resp, 409, "email")
    assert "already an active member" in resp.get_json()["detail"]
    client.patch(
        acme.url(f"/members/{_invite_member_id(app, acme, ann)}"),
        json={"active": False},
        headers=acme.headers,
    )
    resp = _invite(client, acme, email="ann@acme.test")
    assert_problem(resp, 409, "email")
    assert "Reactivate them" in resp.get_json()["detail"]
    # The page offers the reactivation beside the message.
    login(client, acme.owner_email)
    page = client.post(f"/o/{acme.slug}/settings/members/invite", data={"email": "ann@acme.test"})
    assert page.status_code == 409
    html = page.get_data(as_text=True)
    assert "Reactivate them" in html and "Reactivate ann@acme.test" in html


def _invite_member_id(app, org, person):
    from workspace.core.models import OrgMember

    with app.app_context():
        return db.session.scalar(
            select(OrgMember.id).where(
                OrgMember.org_id == org.org_id, OrgMember.account_id == person.owner_id
            )
        )


def test_an_account_with_its_own_sign_in_gets_no_link(app, client, acme):
    """A link would hand this org's admin a key to somebody's existing account."""
    other = make_org(app, "Initech", "boss@initech.test")
    resp = _invite(client, acme, email=other.owner_email)
    assert resp.status_code == 201
    body = resp.get_json()
    assert body["sign_in_url"] is None and "sign in as usual" in body["message"]
    assert body["member"]["active"] is True
    login(client, acme.owner_email)
    made = client.post(f"/o/{acme.slug}/settings/members/invite", data={"email": "fresh@acme.test"})
    assert made.status_code == 302 and made.location.endswith("/members#invite-result")
    html = client.get(made.location).get_data(as_text=True)
    assert 'data-copy="#invite-link"' in html and "shown only once" in html
    assert "/invite/" in html
    # The list shows the invited person as joined by invitation.
    listing = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    assert "Invited" in listing and "/invite/" not in listing  # the link is never shown again


def test_owner_invites_only_by_owners_and_bad_input(app, client, acme):
    admin = add_person(app, acme.org_id, "adm@acme.test", "admin")
    resp = _invite(client, acme, admin.headers, role="owner")
    assert_problem(resp, 403, "role")
    assert "Only an owner can invite an owner" in resp.get_json()["detail"]
    assert _invite(client, acme, admin.headers, role="admin").status_code == 201
    assert_problem(_invite(client, acme, email="not-an-email"), 422, "email")
    assert_problem(_invite(client, acme, email=""), 400, "email")
    assert_problem(_invite(client, acme, email="a@" + "b" * 400 + ".test"), 400, "email")
    assert_problem(_invite(client, acme, email="x@acme.test", role="king"), 400, "role")
    assert_problem(_invite(client, acme, email="x@acme.test", name="n" * 201), 400, "name")
    assert_problem(_invite(client, acme, email=["x@acme.test"]), 400, "email")
    assert_problem(_invite(client, acme, email="x@acme.test", extra=1), 400, "extra")
    resp = client.post(
        acme.url("/invitations"),
        data="[",
        headers={**acme.headers, "Content-Type": "application/json"},
    )
    assert_problem(resp, 400)
    login(client, acme.owner_email)
    page = client.post(f"/o/{acme.slug}/settings/members/invite", data={"email": "nope"})
    assert page.status_code == 400
    assert 'id="f-email-error"' in page.get_data(as_text=True)


def test_invite_link_failures_are_rate_limited(app, acme):
    limited = rate_limited_app(app)
    try:
        c = limited.test_client()
        codes = [c.get(f"/invite/guess-{i}").status_code for i in range(22)]
        assert codes[:20] == [410] * 20 and codes[-1] == 429
    finally:
        limiter.reset()
        limiter.enabled = False
