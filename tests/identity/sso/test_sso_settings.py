"""The SSO connection: save/read/delete, the verified-domain gate on enabling, one
connection per domain across orgs, discovery feedback, access rules, the page."""

from __future__ import annotations

import pytest

from tests.conftest import add_person, login
from tests.identity.conftest import CLIENT_SECRET, verify_domain_for

pytestmark = pytest.mark.usefixtures("doh")


def _body(provider_url, **changes):
    return {
        "email_domain": "acme.test",
        "issuer_url": provider_url,
        "client_id": "workspace-acme",
        "client_secret": CLIENT_SECRET,
    } | changes


def test_save_read_delete(client, acme, oidc_provider):
    assert client.get(acme.url("/sso"), headers=acme.headers).status_code == 404
    resp = client.put(
        acme.url("/sso"),
        headers=acme.headers,
        json=_body(oidc_provider.url + "/", email_domain="https://ACME.test/"),
    )
    assert resp.status_code == 200, resp.get_json()
    out = resp.get_json()
    assert out["email_domain"] == "acme.test"
    assert out["issuer_url"] == oidc_provider.url
    assert out["redirect_uri"] == "http://localhost/auth/sso/callback"
    assert out["enabled"] is False and out["has_client_secret"] is True
    assert out["sync_groups_on_login"] is True and out["groups_claim"] == "groups"
    assert out["remove_stale_synced_memberships"] is False
    assert out["discovery"]["ok"] is True
    assert out["discovery"]["token_endpoint"] == oidc_provider.url + "/oauth2/token"
    assert "client_secret" not in out
    read = client.get(acme.url("/sso"), headers=acme.headers).get_json()
    assert "client_secret" not in read and read["client_id"] == "workspace-acme"
    assert client.delete(acme.url("/sso"), headers=acme.headers).status_code == 204
    assert client.get(acme.url("/sso"), headers=acme.headers).status_code == 404


def test_first_save_needs_a_secret(client, acme, oidc_provider):
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, client_secret="")
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == "client_secret"


def test_enable_requires_this_orgs_verified_domain(client, acme, globex, doh, oidc_provider):
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, enabled=True)
    )
    assert resp.status_code == 422
    assert "Verify acme.test under Domains" in resp.get_json()["detail"]
    assert resp.get_json()["errors"][0]["field"] == "enabled"
    # Verified by another org does not count: the domain is theirs to configure.
    verify_domain_for(client, globex, doh, "acme.test")
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, enabled=True)
    )
    assert (
        resp.status_code == 409 and "verified by another organization" in resp.get_json()["detail"]
    )


def test_email_domain_unique_across_orgs(client, acme, globex, doh, oidc_provider):
    """The domain routes sign-ins for one org only: the one that verified it. A draft
    of an org that never verified it blocks no one, not even after the real owner
    arrives; removing the domain lets go of it."""
    squat = client.put(globex.url("/sso"), headers=globex.headers, json=_body(oidc_provider.url))
    assert squat.status_code == 200 and squat.get_json()["enabled"] is False
    verify_domain_for(client, acme, doh, "acme.test")
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, enabled=True)
    )
    assert resp.status_code == 200 and resp.get_json()["enabled"] is True
    # Now that acme.test is Acme's, Globex cannot save it again, nor enable its draft.
    again = client.put(globex.url("/sso"), headers=globex.headers, json=_body(oidc_provider.url))
    assert again.status_code == 409
    assert again.get_json()["errors"][0]["field"] == "email_domain"
    # Removing the verified domain disables Acme's SSO and frees the domain.
    domain_id = client.get(acme.url("/domains"), headers=acme.headers).get_json()[0]["id"]
    assert client.delete(acme.url(f"/domains/{domain_id}"), headers=acme.headers).status_code == 204
    assert client.get(acme.url("/sso"), headers=acme.headers).get_json()["enabled"] is False
    events = client.get(acme.url("/events"), headers=acme.headers).get_json()
    assert any(
        e["kind"] == "sso.connection.disabled" and e["data"].get("reason") == "domain removed"
        for e in events
    )
    verify_domain_for(client, globex, doh, "acme.test")
    resp = client.put(
        globex.url("/sso"), headers=globex.headers, json=_body(oidc_provider.url, enabled=True)
    )
    assert resp.status_code == 200 and resp.get_json()["enabled"] is True


@pytest.mark.parametrize(
    ("issuer", "says"),
    [
        ("http://127.0.0.1:9", "Could not connect"),
        ("{doh}/nothing-here", "HTTP 404"),
    ],
)
def test_discovery_failure_is_reported_not_fatal(
    client, acme, oidc_provider, doh_server, issuer, says
):
    issuer = issuer.format(doh=doh_server[0])
    resp = client.put(acme.url("/sso"), headers=acme.headers, json=_body(issuer))
    assert resp.status_code == 200
    discovery = resp.get_json()["discovery"]
    assert discovery["ok"] is False and says in discovery["message"], discovery


def test_discovery_refuses_an_issuer_that_names_itself_differently(client, acme, doh, doh_server):
    """OIDC Discovery §4.3: the document's issuer must be the configured one."""
    base = doh_server[0] + "/idp"
    doh.documents["/idp/.well-known/openid-configuration"] = {
        "issuer": "https://login.other.example",
        "authorization_endpoint": base + "/a",
        "token_endpoint": base + "/t",
        "userinfo_endpoint": base + "/u",
        "jwks_uri": base + "/k",
    }
    discovery = client.put(acme.url("/sso"), headers=acme.headers, json=_body(base)).get_json()[
        "discovery"
    ]
    assert discovery["ok"] is False
    assert "calls itself 'https://login.other.example'" in discovery["message"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("issuer_url", "not a url"),
        ("issuer_url", "ftp://idp.example"),
        # Codes and tokens in clear text: http only on loopback (OIDC Core, OAuth BCP).
        ("issuer_url", "http://login.example.com"),
        ("redirect_uri", "http://workspace.example.com/auth/sso/callback"),
        ("redirect_uri", "javascript:alert(1)"),
        ("email_domain", "127.0.0.1"),
        ("client_id", "   "),
    ],
)
def test_bad_input_is_422_with_field(client, acme, oidc_provider, field, value):
    # Text the document takes (a blank client id it refuses), which the service refuses.
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, **{field: value})
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == field


def test_every_field_at_fault_is_in_one_problem(client, acme, oidc_provider):
    wrong = {"issuer_url": "ftp://idp.example", "client_id": " ", "extra_scopes": 'a"b'}
    resp = client.put(acme.url("/sso"), headers=acme.headers,
                      json=_body(oidc_provider.url, **wrong))  # fmt: skip
    assert resp.status_code == 422
    assert sorted(e["field"] for e in resp.get_json()["errors"]) == sorted(wrong)


def test_unknown_field_is_400(client, acme, oidc_provider):
    resp = client.put(
        acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url, client_secrett="typo")
    )
    assert resp.status_code == 400


def test_members_are_refused_and_other_orgs_see_nothing(app, client, acme, globex, oidc_provider):
    client.put(acme.url("/sso"), headers=acme.headers, json=_body(oidc_provider.url))
    member = add_person(app, acme.org_id, "mo@acme.test")
    calls = [
        ("get", "/sso", None),
        ("put", "/sso", _body(oidc_provider.url)),
        ("delete", "/sso", None),
        ("get", "/sso/group-mappings", None),
        ("post", "/sso/sync-preview", {"email": "x@acme.test", "groups": []}),
    ]
    for method, path, body in calls:
        resp = getattr(client, method)(acme.url(path), headers=member.headers, json=body)
        assert resp.status_code == 403, (method, path)
    assert client.get(acme.url("/sso"), headers=acme.headers).status_code == 200
    assert client.get(acme.url("/sso"), headers=globex.headers).status_code == 404
    login(client, member.owner_email)
    for page in ("sso", "group-sync"):
        assert client.get(f"/o/{acme.slug}/settings/{page}").status_code == 403


def test_settings_page_save_enable_disable_delete(app, client, acme, doh, oidc_provider):
    verify_domain_for(client, acme, doh, "acme.test")
    login(client, acme.owner_email)
    page = f"/o/{acme.slug}/settings/sso"
    html = client.get(page).get_data(as_text=True)
    assert "Set up a connection" in html
    assert "http://localhost/auth/sso/callback" in html  # redirect URI pre-filled
    resp = client.post(
        page,
        data={
            "email_domain": "acme.test",
            "issuer_url": oidc_provider.url,
            "client_id": "workspace-acme",
            "client_secret": CLIENT_SECRET,
        },
    )
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert "Found the provider" in html and "/oauth2/token" in html
    assert "disabled" in html and CLIENT_SECRET not in html
    assert "Leave blank to keep the current secret" in html
    resp = client.post(page + "/enabled", data={"enabled": "1"})
    assert resp.status_code == 302
    assert client.get(acme.url("/sso"), headers=acme.headers).get_json()["enabled"] is True
    client.post(page + "/enabled", data={})
    assert client.get(acme.url("/sso"), headers=acme.headers).get_json()["enabled"] is False
    bad = client.post(
        page,
        data={"email_domain": "acme.test", "issuer_url": "nope", "client_id": "workspace-acme"},
    )
    assert bad.status_code == 400
    assert "full https URL" in bad.get_data(as_text=True)
    assert 'value="nope"' in bad.get_data(as_text=True)  # what was typed stays
    client.post(page + "/delete")
    assert client.get(acme.url("/sso"), headers=acme.headers).status_code == 404


def test_page_refuses_enable_for_unverified_domain(client, acme, oidc_provider):
    login(client, acme.owner_email)
    page = f"/o/{acme.slug}/settings/sso"
    client.post(
        page,
        data={
            "email_domain": "acme.test",
            "issuer_url": oidc_provider.url,
            "client_id": "c",
            "client_secret": "x",
        },
    )
    resp = client.post(page + "/enabled", data={"enabled": "1"}, follow_redirects=True)
    assert "Verify acme.test under Domains" in resp.get_data(as_text=True)


def test_settings_nav_links_identity_pages(client, acme):
    login(client, acme.owner_email)
    html = client.get(f"/o/{acme.slug}/settings/domains").get_data(as_text=True)
    for path in ("/settings/domains", "/settings/sso", "/settings/group-sync"):
        assert f'href="/o/{acme.slug}{path}"' in html
