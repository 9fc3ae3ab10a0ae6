"""An absent groups claim is not an empty one (docs/sso.md#group-sync): a sign-in
whose provider sent no groups claim changes no project role, records why, and the
preview says so; the connection names extra scopes to ask the provider for it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from sqlalchemy import select

from tests.identity.sso.test_groupsync import _map, _project, _roles, _set_connection
from workspace.core.models import Event
from workspace.extensions import db


def _skips(app, org_id) -> list[dict]:
    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == "sso.sync.skipped")
        )
        return [{"subject": e.subject, **e.data} for e in rows]


def test_a_sign_in_without_the_groups_claim_removes_no_synced_membership(app, client, sso):
    _set_connection(client, sso, remove_stale_synced_memberships=True)
    web = _project(client, sso.org, "WEB")
    _map(client, sso.org, "devs", web, "member")
    first = sso.sign_in(app.test_client(), "kim-sub", email="kim@acme.test", groups=["devs"])
    assert first.status_code == 302
    assert _roles(app, "kim@acme.test") == {web: ("member", "synced")}

    # The provider now sends no groups claim at all (its groups scope was not asked for).
    sso.provider.set_user("kim-sub", email="kim@acme.test")
    again = sso.sign_in(app.test_client(), "kim-sub")
    assert again.status_code == 302
    assert _roles(app, "kim@acme.test") == {web: ("member", "synced")}
    (skip,) = _skips(app, sso.org.org_id)
    assert skip["subject"] == "kim@acme.test" and skip["reason"] == "no_groups_claim"
    assert "sent no 'groups' claim" in skip["message"]

    # A claim that is there and empty still means "in no group".
    sso.provider.set_user("kim-sub", email="kim@acme.test", groups=[])
    assert sso.sign_in(app.test_client(), "kim-sub").status_code == 302
    assert _roles(app, "kim@acme.test") == {}


def test_the_preview_shows_what_an_absent_claim_does(app, client, sso):
    web = _project(client, sso.org, "WEB")
    _map(client, sso.org, "devs", web, "member")
    sso.sign_in(app.test_client(), "kim-sub", email="kim@acme.test", groups=["devs"])
    resp = client.post(
        sso.org.url("/sso/sync-preview"),
        json={"email": "kim@acme.test", "groups": None},
        headers=sso.org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert (body["adds"], body["changes"], body["removes"]) == ([], [], [])
    assert "roles are left as they are" in body["skipped"]
    # With the claim present and empty the same person would lose the project.
    resp = client.post(
        sso.org.url("/sso/sync-preview"),
        json={"email": "kim@acme.test", "groups": []},
        headers=sso.org.headers,
    )
    assert resp.get_json()["skipped"] is None

    # The page's preview has the same choice.
    from tests.factories import login

    login(client, sso.org.owner_email)
    page = client.post(
        f"/o/{sso.org.slug}/settings/group-sync/preview",
        data={"email": "kim@acme.test", "groups": "", "no_claim": "1"},
    )
    assert page.status_code == 200
    assert "roles are left as they are" in page.get_data(as_text=True)


def test_extra_scopes_are_requested_and_checked(app, client, sso):
    _set_connection(client, sso, extra_scopes="groups  offline_access groups openid")
    conn = client.get(sso.org.url("/sso"), headers=sso.org.headers).get_json()
    assert conn["extra_scopes"] == "groups offline_access"
    url = sso.start(app.test_client())
    assert parse_qs(urlsplit(url).query)["scope"] == ["openid email profile groups offline_access"]

    resp = client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace-acme",
            "enabled": True,
            "extra_scopes": 'groups "x"',
        },
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == "extra_scopes"
