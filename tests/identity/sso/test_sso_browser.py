"""A person in real Chromium: types their work email on the sign-in page, approves
at the OIDC provider's own form, and lands signed in with the mapped project role."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.identity.conftest import CLIENT_SECRET, verify_domain_for

pytestmark = pytest.mark.browser


def test_sso_sign_in_in_a_browser(page, live_server, client, acme, doh, oidc_provider):
    verify_domain_for(client, acme, doh, "acme.test")
    resp = client.put(
        acme.url("/sso"),
        headers=acme.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": oidc_provider.url,
            "client_id": "workspace-browser",
            "client_secret": CLIENT_SECRET,
            "enabled": True,
            "redirect_uri": live_server.url + "/auth/sso/callback",
        },
    )
    assert resp.status_code == 200, resp.get_json()
    project = client.post(
        acme.url("/projects"), headers=acme.headers, json={"name": "Mobile", "identifier": "MOB"}
    ).get_json()
    client.post(
        acme.url("/sso/group-mappings"),
        headers=acme.headers,
        json={"idp_group": "mobile-team", "project_id": project["id"], "role": "admin"},
    )
    oidc_provider.set_user(
        "bea-sub",
        email="bea@acme.test",
        email_verified=True,
        name="Bea Browser",
        groups=["mobile-team"],
    )

    page.goto(f"{live_server.url}/signin")
    page.get_by_label("Work email or domain").fill("bea@acme.test")
    page.get_by_role("button", name="Sign in with SSO").click()
    expect(page).to_have_url(re.compile(re.escape(oidc_provider.url) + "/oauth2/authorize"))
    page.get_by_placeholder("sub").fill("bea-sub")
    page.get_by_role("button", name="Authorize").click()
    expect(page).to_have_url(re.compile(rf"{re.escape(live_server.url)}/o/{acme.slug}/$"))
    expect(page.get_by_text("Bea Browser").first).to_be_visible()

    members = client.get(
        acme.url(f"/projects/{project['id']}/members"), headers=acme.headers
    ).get_json()
    bea = next(m for m in members if m["account"]["email"] == "bea@acme.test")
    assert bea["role"] == "admin"

    assert bea["source"] == "synced"
    page.goto(f"{live_server.url}/o/{acme.slug}/projects")
    expect(page.get_by_role("link", name="Mobile").first).to_be_visible()
