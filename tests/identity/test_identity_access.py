"""Deny by default over every identity management route: members get 403, another
org's admin gets 404, nobody signed in gets 401 (API) or the sign-in page."""

from __future__ import annotations

import pytest

from tests.conftest import add_person, login

ANY = "a017b468-9e5d-4d1a-825f-6b660b465625"

API_ROUTES = [
    ("get", "/domains", None),
    ("post", "/domains", {"domain": "acme.example"}),
    ("post", f"/domains/{ANY}/verify", None),
    ("delete", f"/domains/{ANY}", None),
    ("get", "/sso", None),
    (
        "put",
        "/sso",
        {
            "email_domain": "acme.test",
            "issuer_url": "https://idp.example",
            "client_id": "c",
            "client_secret": "s",
        },
    ),
    ("delete", "/sso", None),
    ("get", "/sso/group-mappings", None),
    ("post", "/sso/group-mappings", {"idp_group": "g", "project_id": ANY, "role": "viewer"}),
    ("delete", f"/sso/group-mappings/{ANY}", None),
    ("post", "/sso/sync-preview", {"email": "a@acme.test", "groups": []}),
]

PAGES = [
    ("get", "domains"),
    ("post", "domains"),
    ("get", "sso"),
    ("post", "sso"),
    ("post", "sso/enabled"),
    ("post", "sso/delete"),
    ("get", "group-sync"),
    ("post", "group-sync"),
    ("post", "group-sync/preview"),
    ("post", f"domains/{ANY}/verify"),
    ("post", f"domains/{ANY}/remove"),
    ("post", f"group-sync/{ANY}/remove"),
]


@pytest.mark.parametrize(("method", "path", "body"), API_ROUTES)
def test_api_routes_deny_by_default(app, client, acme, globex, method, path, body):
    member = add_person(app, acme.org_id, "member@acme.test")
    call = getattr(client, method)
    assert call(acme.url(path), headers=member.headers, json=body).status_code == 403
    assert call(acme.url(path), headers=globex.headers, json=body).status_code == 404
    assert call(acme.url(path), json=body).status_code == 401


@pytest.mark.parametrize(("method", "path"), PAGES)
def test_pages_deny_by_default(app, client, acme, method, path):
    url = f"/o/{acme.slug}/settings/{path}"
    resp = getattr(client, method)(url)
    assert resp.status_code == 302 and "/signin" in resp.location
    add_person(app, acme.org_id, "member@acme.test")
    login(client, "member@acme.test")
    assert getattr(client, method)(url).status_code == 403
