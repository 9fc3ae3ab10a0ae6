"""The SCIM token: JSON API and settings page, owner/admin only, shown once."""

from __future__ import annotations

import pytest

from tests.conftest import add_person, login


def test_token_api_lifecycle(client, acme):
    assert client.get(acme.url("/scim-token"), headers=acme.headers).get_json() == {
        "configured": False,
        "prefix": None,
        "last_used_at": None,
        "created_at": None,
    }
    resp = client.post(acme.url("/scim-token"), headers=acme.headers)
    assert resp.status_code == 201
    created = resp.get_json()
    assert created["token"].startswith("scim_") and created["configured"] is True
    assert created["token"].startswith(created["prefix"])
    meta = client.get(acme.url("/scim-token"), headers=acme.headers).get_json()
    assert "token" not in meta and meta["prefix"] == created["prefix"]
    assert meta["last_used_at"] is None
    client.get(
        f"/scim/v2/orgs/{acme.org_id}/Users",
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert client.get(acme.url("/scim-token"), headers=acme.headers).get_json()["last_used_at"]
    assert client.delete(acme.url("/scim-token"), headers=acme.headers).status_code == 204
    resp = client.delete(acme.url("/scim-token"), headers=acme.headers)
    assert resp.status_code == 404
    assert (
        client.get(acme.url("/scim-token"), headers=acme.headers).get_json()["configured"] is False
    )


def test_token_is_stored_hashed(app, client, acme):
    raw = client.post(acme.url("/scim-token"), headers=acme.headers).get_json()["token"]
    from sqlalchemy import select

    from workspace.extensions import db
    from workspace.scim.models import ScimToken

    with app.app_context():
        row = db.session.scalar(select(ScimToken))
        assert raw not in (row.token_hash, row.prefix) and len(row.token_hash) == 64


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_token_api_is_for_owners_and_admins(app, client, acme, method):
    member = add_person(app, acme.org_id, "m@acme.test")
    resp = getattr(client, method)(acme.url("/scim-token"), headers=member.headers)
    assert resp.status_code == 403
    admin = add_person(app, acme.org_id, "a@acme.test", role="admin")
    resp = getattr(client, method)(acme.url("/scim-token"), headers=admin.headers)
    assert resp.status_code in (200, 201, 404)


def test_settings_page_shows_base_url_and_token_once(app, client, acme):
    login(client, acme.owner_email)
    page = client.get("/o/acme/settings/scim")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f"http://localhost/scim/v2/orgs/{acme.org_id}" in html
    assert "No token yet" in html
    resp = client.post("/o/acme/settings/scim/token")
    # To the page, which shows it: a reload there does not replace the token the IdP
    # was just given with another.
    assert resp.status_code == 303 and resp.location.endswith(
        "/o/acme/settings/scim#scim-new-token-box"
    )
    html = client.get(resp.location).get_data(as_text=True)
    token = html.split('id="scim-new-token">')[1].split("<")[0]
    assert token.startswith("scim_") and "shown only once" in html and "data-copy" in html
    again = client.get("/o/acme/settings/scim").get_data(as_text=True)
    assert token not in again and token[:10] in again and "configured" in again
    # With HTMX the panel is swapped in place, the new token in it.
    swapped = client.post("/o/acme/settings/scim/token", headers={"HX-Request": "true"})
    html = swapped.get_data(as_text=True)
    assert swapped.status_code == 200 and "<html" not in html and 'id="scim-new-token">' in html
    partial = client.post("/o/acme/settings/scim/token/revoke", headers={"HX-Request": "true"})
    assert 'id="scim-token-panel"' in partial.get_data(as_text=True)
    assert "<html" not in partial.get_data(as_text=True)
    assert "No token yet" in client.get("/o/acme/settings/scim").get_data(as_text=True)


def test_settings_page_refuses_members(app, client, acme):
    add_person(app, acme.org_id, "m@acme.test")
    login(client, "m@acme.test")
    assert client.get("/o/acme/settings/scim").status_code == 403
    assert client.post("/o/acme/settings/scim/token").status_code == 403


def test_scim_is_exempt_from_csrf_but_the_settings_forms_are_not(app, client, acme, scim):
    login(client, acme.owner_email)
    app.config["WTF_CSRF_ENABLED"] = True
    try:
        assert client.post("/o/acme/settings/scim/token").status_code == 400
        user = scim.create("csrf@example.test")
        assert scim.delete(f"/Users/{user['id']}").status_code == 204
    finally:
        app.config["WTF_CSRF_ENABLED"] = False
