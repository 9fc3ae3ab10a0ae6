"""Enforced SSO with break-glass owners (docs/sso.md#enforced-sso), against the
oidc-provider-mock process: who is refused password sign-in and invitation links, who
keeps a password, the preview and its confirmation, and who may change it."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from tests.factories import PASSWORD, OrgFixture, add_person, login, member_id
from workspace.core.models import Event
from workspace.extensions import db


@dataclass
class Enforcing:
    sso: object
    acme: OrgFixture
    bob: OrgFixture
    invite_token: str
    owner_member: str


def _events(app, org_id, kind: str) -> list[Event]:
    with app.app_context():
        return list(
            db.session.scalars(
                select(Event)
                .where(Event.org_id == org_id, Event.kind == kind)
                .order_by(Event.created_at)
            )
        )


def _domain_id(client, acme: OrgFixture, name: str = "acme.test") -> str:
    state = client.get(acme.url("/enforced-sso"), headers=acme.headers)
    assert state.status_code == 200, state.get_json()
    return next(d["domain_id"] for d in state.get_json()["domains"] if d["domain"] == name)


def _invite(client, org: OrgFixture, email: str):
    return client.post(org.url("/invitations"), headers=org.headers, json={"email": email})


@pytest.fixture
def ready(app, client, sso) -> Enforcing:
    """Acme with SSO for acme.test; bob has a password and no SSO link; carol has a
    pending invitation link; the owner is break-glass. Not enforced yet."""
    acme = sso.org
    bob = add_person(app, acme.org_id, "bob@acme.test")
    resp = _invite(client, acme, "carol@acme.test")
    assert resp.status_code == 201, resp.get_json()
    token = resp.get_json()["sign_in_url"].rsplit("/", 1)[-1]
    owner = str(member_id(app, acme.org_id, acme.owner_email))
    resp = client.put(acme.url(f"/break-glass/{owner}"), headers=acme.headers)
    assert resp.status_code == 200, resp.get_json()
    return Enforcing(sso, acme, bob, token, owner)


@pytest.fixture
def enforced(client, ready) -> Enforcing:
    domain = _domain_id(client, ready.acme)
    resp = client.put(
        ready.acme.url(f"/domains/{domain}/enforced-sso"),
        headers=ready.acme.headers,
        json={"source": "sso", "confirm": True},
    )
    assert resp.status_code == 200, resp.get_json()
    return ready


def test_the_preview_lists_exactly_who_loses_password_sign_in(app, client, ready):
    acme = ready.acme
    # Alice came through SSO (linked, no password); dave is on another domain.
    assert ready.sso.sign_in(client, "alice", email="alice@acme.test").status_code == 302
    add_person(app, acme.org_id, "dave@elsewhere.test")
    domain = _domain_id(client, acme)
    resp = client.get(acme.url(f"/domains/{domain}/enforced-sso/preview"), headers=acme.headers)
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["source"] == "sso"
    assert [p["email"] for p in body["locked_out"]] == ["bob@acme.test"]
    assert [p["email"] for p in body["pending_invitations"]] == ["carol@acme.test"]
    assert [p["email"] for p in body["kept"]] == [acme.owner_email]
    # Nothing was written: bob still signs in with his password.
    client.post("/signout")
    login(client, "bob@acme.test")


def test_enforcing_needs_a_confirmation_and_a_break_glass_owner(app, client, ready):
    acme = ready.acme
    domain = _domain_id(client, acme)
    url = acme.url(f"/domains/{domain}/enforced-sso")
    assert client.put(url, headers=acme.headers, json={"source": "sso"}).status_code in (400, 422)
    resp = client.put(url, headers=acme.headers, json={"source": "sso", "confirm": False})
    assert resp.status_code == 422
    assert "1 people" in resp.get_json()["detail"] and "confirm" in resp.get_json()["detail"]
    resp = client.delete(acme.url(f"/break-glass/{ready.owner_member}"), headers=acme.headers)
    assert resp.status_code == 204
    resp = client.put(url, headers=acme.headers, json={"source": "sso", "confirm": True})
    assert resp.status_code == 409
    assert "break-glass" in resp.get_json()["detail"]
    resp = client.put(url, headers=acme.headers, json={"source": "ldap", "confirm": True})
    assert resp.status_code == 422  # no LDAP here: SSO is the only source
    assert _events(app, acme.org_id, "sso.enforced") == []


def test_password_sign_in_is_refused_with_a_way_to_sso_and_audited(app, client, enforced):
    resp = client.post("/signin", data={"email": "bob@acme.test", "password": PASSWORD})
    assert resp.status_code == 403
    html = resp.get_data(as_text=True)
    assert "requires single sign-on for acme.test" in html
    assert 'href="/auth/sso/start?email=bob@acme.test"' in html
    refused = _events(app, enforced.acme.org_id, "auth.sso_enforced.refused")
    assert [(e.subject, e.data["reason"], e.data["attempted"]) for e in refused] == [
        ("bob@acme.test", "sso_enforced", "password")
    ]
    # A wrong password says nothing about enforcement.
    resp = client.post("/signin", data={"email": "bob@acme.test", "password": "wrong password!"})
    assert resp.status_code == 401 and "single sign-on" not in resp.get_data(as_text=True)


def test_sso_still_signs_people_in(app, client, enforced):
    resp = enforced.sso.sign_in(client, "erin", email="erin@acme.test", name="Erin")
    assert resp.status_code == 302
    assert resp.headers["Location"].rstrip("/").endswith(f"/o/{enforced.acme.slug}")
    assert client.get(f"/o/{enforced.acme.slug}/").status_code == 200


def test_invitation_links_are_refused_and_new_ones_not_made(app, client, enforced):
    page = client.get(f"/invite/{enforced.invite_token}")
    assert page.status_code == 403
    assert "/auth/sso/start?email=carol@acme.test" in page.get_data(as_text=True)
    resp = client.post(f"/invite/{enforced.invite_token}", data={"password": "a long new password"})
    assert resp.status_code == 403
    assert "requires single sign-on" in resp.get_data(as_text=True)
    refused = _events(app, enforced.acme.org_id, "auth.sso_enforced.refused")
    assert [e.data["attempted"] for e in refused] == ["invite"]
    # No password was set through the link: carol cannot sign in with it.
    resp = client.post(
        "/signin", data={"email": "carol@acme.test", "password": "a long new password"}
    )
    assert resp.status_code == 401
    resp = _invite(client, enforced.acme, "frank@acme.test")
    assert resp.status_code == 201 and resp.get_json()["sign_in_url"] is None


def test_a_break_glass_owner_signs_in_with_a_password_audited_and_shown(app, client, enforced):
    acme = enforced.acme
    login(client, acme.owner_email)
    uses = _events(app, acme.org_id, "auth.break_glass")
    assert [e.subject for e in uses] == [acme.owner_email]
    logins = _events(app, acme.org_id, "auth.login")
    assert logins[-1].data.get("break_glass") is True
    html = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    row = re.search(r'<tr id="member-' + enforced.owner_member + r'".*?</tr>', html, re.S).group(0)
    assert "break-glass" in row and "break-glass last used" in row and "never" not in row
    state = client.get(acme.url("/enforced-sso"), headers=acme.headers).get_json()
    assert state["break_glass"][0]["last_used_at"] is not None


def test_only_an_owner_changes_enforcement(app, client, ready):
    acme = ready.acme
    admin = add_person(app, acme.org_id, "ann@elsewhere.test", role="admin")
    domain = _domain_id(client, acme)
    assert client.get(acme.url("/enforced-sso"), headers=admin.headers).status_code == 200
    resp = client.put(
        acme.url(f"/domains/{domain}/enforced-sso"),
        headers=admin.headers,
        json={"source": "sso", "confirm": True},
    )
    assert resp.status_code == 403
    assert "Only an org owner" in resp.get_json()["detail"]
    assert (
        client.get(
            acme.url(f"/domains/{domain}/enforced-sso/preview"), headers=admin.headers
        ).status_code
        == 403
    )
    assert (
        client.delete(
            acme.url(f"/break-glass/{ready.owner_member}"), headers=admin.headers
        ).status_code
        == 403
    )
    login(client, admin.owner_email)
    page = client.post(
        f"/o/{acme.slug}/settings/enforced-sso/{domain}/enforce", data={"confirm": "true"}
    )
    assert page.status_code == 403
    assert _events(app, acme.org_id, "sso.enforced") == []


def test_turning_it_off_is_immediate_and_audited(app, client, enforced):
    acme = enforced.acme
    domain = _domain_id(client, acme)
    resp = client.delete(acme.url(f"/domains/{domain}/enforced-sso"), headers=acme.headers)
    assert resp.status_code == 204
    assert [e.subject for e in _events(app, acme.org_id, "sso.enforcement_ended")] == ["acme.test"]
    login(client, "bob@acme.test")


def test_disabling_or_deleting_the_enforced_connection_says_who_it_locks_out(client, enforced):
    """Enforcement stays when SSO goes (it fails closed): both confirmations say so."""
    acme = enforced.acme
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings/sso").get_data(as_text=True)
    warning = "Acme requires single sign-on for acme.test: no one there but break-glass"
    assert page.count(warning) == 2  # Disable and Delete
    domain = _domain_id(client, acme)
    client.delete(acme.url(f"/domains/{domain}/enforced-sso"), headers=acme.headers)
    page = client.get(f"/o/{acme.slug}/settings/sso").get_data(as_text=True)
    assert "requires single sign-on for" not in page and "Delete the SSO connection?" in page


def test_the_last_break_glass_owner_stays_while_enforced(app, client, enforced):
    acme = enforced.acme
    resp = client.delete(acme.url(f"/break-glass/{enforced.owner_member}"), headers=acme.headers)
    assert resp.status_code == 409
    bob = member_id(app, acme.org_id, "bob@acme.test")
    resp = client.put(acme.url(f"/break-glass/{bob}"), headers=acme.headers)
    assert resp.status_code == 422  # only owners can be break-glass


def test_api_tokens_follow_the_membership(app, client, enforced):
    acme, bob = enforced.acme, enforced.bob
    assert client.get(acme.url(""), headers=bob.headers).status_code == 200
    bob_member = member_id(app, acme.org_id, "bob@acme.test")
    resp = client.patch(
        acme.url(f"/members/{bob_member}"), headers=acme.headers, json={"active": False}
    )
    assert resp.status_code == 200, resp.get_json()
    # Deactivation stops the token (the membership is gone, or the token with it).
    assert client.get(acme.url(""), headers=bob.headers).status_code in (401, 404)


def test_the_settings_page_previews_then_confirms(app, client, ready):
    acme = ready.acme
    login(client, acme.owner_email)
    domain = _domain_id(client, acme)
    page = client.get(f"/o/{acme.slug}/settings/enforced-sso")
    assert page.status_code == 200 and "Preview requiring SSO" in page.get_data(as_text=True)
    preview = client.get(f"/o/{acme.slug}/settings/enforced-sso/{domain}/preview?source=sso")
    html = preview.get_data(as_text=True)
    assert preview.status_code == 200
    locked = re.search(r'<ul class="stack" id="locked-out">(.*?)</ul>', html, re.S).group(1)
    assert "bob@acme.test" in locked and acme.owner_email not in locked
    assert "carol@acme.test" in html and "data-confirm=" in html
    action = f"/o/{acme.slug}/settings/enforced-sso/{domain}/enforce"
    resp = client.post(action, data={"source": "sso"})
    assert resp.status_code == 400 and "then confirm" in resp.get_data(as_text=True)
    resp = client.post(action, data={"source": "sso", "confirm": "true"})
    assert resp.status_code == 302
    assert [e.subject for e in _events(app, acme.org_id, "sso.enforced")] == ["acme.test"]
