"""The OAuth client on the SCIM settings page (docs/scim.md#client-credentials):
create, add secrets (shown once, two live at most), revoke with a confirmation,
the token endpoint URL to copy; owners and admins only; audited."""

from __future__ import annotations

from tests.conftest import add_person, login
from tests.scim.conftest import event_kinds

PAGE = "/o/acme/settings/scim"
HX = {"HX-Request": "true"}


def _secret(html: str) -> str:
    return html.split('id="scim-new-secret">')[1].split("<")[0]


def test_oauth_client_on_the_settings_page(app, client, acme):
    login(client, acme.owner_email)
    html = client.get(PAGE).get_data(as_text=True)
    assert "No OAuth client yet" in html and "Create an OAuth client" in html

    panel = client.post(PAGE + "/oauth", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="scim-oauth-panel"' in panel and "<html" not in panel
    token_url = f"http://localhost/scim/v2/orgs/{acme.org_id}/oauth/token"
    assert token_url in panel and 'data-copy="#scim-token-url"' in panel
    assert 'id="scim-client-id">scimc_' in panel and "No secret yet" in panel

    made = client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "30"})
    assert made.status_code == 303  # to the page that shows it: a reload adds no other
    first = client.get(made.location)
    raw = _secret(first.get_data(as_text=True))
    assert raw.startswith("scimcs_") and "shown only once" in first.get_data(as_text=True)
    again = client.get(PAGE).get_data(as_text=True)
    assert raw not in again and raw[:10] in again  # the prefix only, from now on
    assert 'data-confirm="Revoke the secret' in again and 'data-confirm="Delete the OAuth' in again

    second = client.post(PAGE + "/oauth/secrets", data={}, headers={"HX-Request": "true"})
    second = _secret(second.get_data(as_text=True))  # HTMX: in the swapped panel
    assert second != raw
    html = client.get(PAGE).get_data(as_text=True)
    assert "Two secrets are live" in html and 'name="expires_in_days"' not in html
    refused = client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "30"})
    assert refused.status_code == 409 and "two live secrets" in refused.get_data(as_text=True)
    bad = client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "5000"})
    assert bad.status_code == 400
    # It says which bound: the form's "Some fields need your attention" had named
    # none, and under HTMX the panel (data-swap-errors) shows it in place.
    assert "730 or less" in bad.get_data(as_text=True)
    bad = client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "0"}, headers=HX)
    text = bad.get_data(as_text=True)
    assert bad.status_code == 400 and "<html" not in text and "1 or more" in text
    assert 'id="scim-oauth-panel" data-swap-errors' in text

    from workspace.scim import oauth

    with app.app_context():
        secret_id = next(
            s.id for s in oauth.client_info(acme.org_id).secrets if s.prefix == raw[:10]
        )
    revoke = client.post(f"{PAGE}/oauth/secrets/{secret_id}/revoke", headers={"HX-Request": "true"})
    assert revoke.status_code == 200 and "revoked" in revoke.get_data(as_text=True)
    assert client.post(f"{PAGE}/oauth/secrets/{secret_id}/revoke").status_code == 404
    assert 'name="expires_in_days"' in client.get(PAGE).get_data(as_text=True)

    deleted = client.post(PAGE + "/oauth/delete").get_data(as_text=True)
    assert "No OAuth client yet" in deleted
    assert event_kinds(app, acme.org_id, "scim.oauth_") == [
        "scim.oauth_client.created",
        "scim.oauth_secret.added",
        "scim.oauth_secret.added",
        "scim.oauth_secret.revoked",
        "scim.oauth_client.deleted",
    ]


def test_oauth_forms_are_for_owners_and_admins(app, client, acme):
    add_person(app, acme.org_id, "m@acme.test")
    login(client, "m@acme.test")
    assert client.post(PAGE + "/oauth").status_code == 403
    assert client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "3"}).status_code == 403


def test_deactivating_the_clients_creator_deletes_the_client(app, client, acme):
    add_person(app, acme.org_id, "creator@acme.test", role="admin")
    login(client, "creator@acme.test")
    client.post(PAGE + "/oauth")
    client.post(PAGE + "/oauth/secrets", data={"expires_in_days": "3"})
    from workspace.scim import oauth

    with app.app_context():
        assert oauth.client_info(acme.org_id).configured
    from tests.factories import member_id

    member = member_id(app, acme.org_id, "creator@acme.test")
    resp = client.patch(
        acme.url(f"/members/{member}"), json={"active": False}, headers=acme.headers
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    with app.app_context():
        assert not oauth.client_info(acme.org_id).configured
    assert "scim.oauth_client.deleted" in event_kinds(app, acme.org_id, "scim.oauth_")


def test_demoting_the_clients_creator_deletes_the_client(app, client, acme):
    from tests.factories import member_id
    from workspace.scim import oauth

    add_person(app, acme.org_id, "demoted@acme.test", role="admin")
    login(client, "demoted@acme.test")
    client.post(PAGE + "/oauth")
    member = member_id(app, acme.org_id, "demoted@acme.test")
    resp = client.patch(
        acme.url(f"/members/{member}"), json={"role": "member"}, headers=acme.headers
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    with app.app_context():
        assert not oauth.client_info(acme.org_id).configured


def test_oauth_client_json_api(app, client, acme):
    h = acme.headers
    assert client.get(acme.url("/scim-oauth-client"), headers=h).get_json()["configured"] is False
    created = client.post(acme.url("/scim-oauth-client"), headers=h)
    assert created.status_code == 201
    body = created.get_json()
    assert body["client_id"].startswith("scimc_") and body["secrets"] == []
    assert body["token_endpoint"].endswith(f"/scim/v2/orgs/{acme.org_id}/oauth/token")
    assert client.post(acme.url("/scim-oauth-client"), headers=h).status_code == 409

    url = acme.url("/scim-oauth-client/secrets")
    first = client.post(url, json={"expires_in_days": 7}, headers=h)
    assert first.status_code == 201
    secret = first.get_json()
    assert secret["secret"].startswith(secret["prefix"]) and secret["state"] == "live"
    assert client.post(url, json={}, headers=h).status_code == 201  # 180 days by default
    assert client.post(url, json={"expires_in_days": 7}, headers=h).status_code == 409
    assert client.post(url, json={"expires_in_days": "7"}, headers=h).status_code == 400
    listed = client.get(acme.url("/scim-oauth-client"), headers=h).get_data(as_text=True)
    assert secret["secret"] not in listed and secret["prefix"] in listed

    revoke = acme.url(f"/scim-oauth-client/secrets/{secret['id']}")
    assert client.delete(revoke, headers=h).status_code == 204
    assert client.delete(revoke, headers=h).status_code == 404
    states = [
        s["state"]
        for s in client.get(acme.url("/scim-oauth-client"), headers=h).get_json()["secrets"]
    ]
    assert sorted(states) == ["live", "revoked"]
    assert client.delete(acme.url("/scim-oauth-client"), headers=h).status_code == 204
    assert client.delete(acme.url("/scim-oauth-client"), headers=h).status_code == 404
