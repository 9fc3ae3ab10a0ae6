"""Enforced SSO when the org's source is its LDAP directory (docs/sso.md#enforced-sso):
a refused password sign-in is sent to the directory form, not to an SSO start. The
refusal never contacts the directory, so the connection is stored, not served."""

from __future__ import annotations

from tests.factories import (
    PASSWORD,
    add_person,
    login,
    member_id,
    store_ldap,
    verify_domains,
)


def test_an_ldap_org_sends_refused_password_sign_ins_to_its_directory(app, client, acme):
    verify_domains(app, acme.org_id, "acme.test")
    add_person(app, acme.org_id, "bob@acme.test")
    store_ldap(app, acme.org_id)
    owner = member_id(app, acme.org_id, acme.owner_email)
    assert client.put(acme.url(f"/break-glass/{owner}"), headers=acme.headers).status_code == 200
    state = client.get(acme.url("/enforced-sso"), headers=acme.headers).get_json()
    (domain,) = state["domains"]
    assert domain["available_sources"] == ["ldap"]  # no SSO connection for acme.test
    url = acme.url(f"/domains/{domain['domain_id']}/enforced-sso")
    resp = client.put(url, headers=acme.headers, json={"source": "sso", "confirm": True})
    assert resp.status_code == 422 and "choose LDAP" in resp.get_json()["detail"]
    resp = client.put(url, headers=acme.headers, json={"confirm": True})
    assert resp.status_code == 200 and resp.get_json()["source"] == "ldap"

    resp = client.post(
        "/signin",
        data={"email": "bob@acme.test", "password": PASSWORD},
        headers={"Accept": "text/html"},
    )
    assert resp.status_code == 403
    html = resp.get_data(as_text=True)
    assert "Sign in with your directory account instead" in html
    assert 'href="/signin?org=acme#ldap-signin">Sign in with your directory</a>' in html


def test_removing_the_enforced_directory_says_who_it_locks_out(app, client, acme):
    """Enforcement fails closed when its source goes (docs/sso.md#enforced-sso), so the
    removal's confirmation says so before an admin locks the domain out."""
    verify_domains(app, acme.org_id, "acme.test")
    store_ldap(app, acme.org_id)
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings/ldap").get_data(as_text=True)
    assert "Remove the LDAP connection? Directory sign-in stops for Acme." in page
    assert "requires directory sign-in" not in page
    owner = member_id(app, acme.org_id, acme.owner_email)
    assert client.put(acme.url(f"/break-glass/{owner}"), headers=acme.headers).status_code == 200
    state = client.get(acme.url("/enforced-sso"), headers=acme.headers).get_json()
    url = acme.url(f"/domains/{state['domains'][0]['domain_id']}/enforced-sso")
    assert client.put(url, headers=acme.headers, json={"confirm": True}).status_code == 200
    page = client.get(f"/o/{acme.slug}/settings/ldap").get_data(as_text=True)
    assert "Acme requires directory sign-in for acme.test: no one there but break-glass" in page
