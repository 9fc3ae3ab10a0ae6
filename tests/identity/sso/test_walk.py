"""The SSO callback's walk through our files (docs/architecture.md#walks-through-the-code)."""

from __future__ import annotations

from tests.factories import create_project
from tests.identity.conftest import _local
from tests.walks import walk


def test_a_first_sso_callback_stays_within_its_walk(app, client, sso):
    """The longest callback: a new person, provisioned, with a mapped group."""
    web = create_project(client, sso.org, "Website", "WEB")["id"]
    mapping = {"idp_group": "engineering", "project_id": web, "role": "member"}
    resp = client.post(sso.org.url("/sso/group-mappings"), headers=sso.org.headers, json=mapping)
    assert resp.status_code == 201, resp.get_json()
    browser = app.test_client()
    sso.provider.set_user(
        "walker", email="walker@acme.test", email_verified=True, groups=["engineering"]
    )
    back = _local(sso.provider.authorize(sso.start(browser), "walker"))
    with walk() as callback:
        resp = browser.get(back)
    assert resp.status_code == 302 and resp.location.endswith(f"/o/{sso.org.slug}/")
    assert "identity/sso/signin.py" in callback.files
    assert len(callback.files) <= 24, callback.report()
