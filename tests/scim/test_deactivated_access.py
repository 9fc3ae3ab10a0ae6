"""A member the IdP deactivates loses the org at once: their API token and their
browser session stop working for it on the very next request, while the same
session still works in another org they belong to."""

from __future__ import annotations

from tests.conftest import add_person, login
from tests.scim.conftest import USER, new_scim_token


def test_deactivation_cuts_api_token_and_session(app, client, scim, globex):
    person = add_person(app, scim.org.org_id, "dee@acme.test")
    add_person(app, globex.org_id, "dee@acme.test")
    browser = app.test_client()
    login(browser, "dee@acme.test")
    assert client.get(person.url("/projects"), headers=person.headers).status_code == 200
    assert browser.get("/o/acme/").status_code == 200

    [dee] = scim.get('/Users?filter=userName eq "dee@acme.test"').get_json()["Resources"]
    resp = scim.patch(f"/Users/{dee['id']}", [{"op": "replace", "path": "active", "value": False}])
    assert resp.status_code == 200

    assert client.get(person.url("/projects"), headers=person.headers).status_code in (401, 404)
    assert browser.get("/o/acme/").status_code == 404
    assert browser.get(person.url("/projects")).status_code == 404
    assert browser.get("/o/globex/").status_code == 200

    # Reactivation gives the org back to the session; the revoked API token stays dead.
    resp = scim.put(f"/Users/{dee['id']}", {"schemas": [USER], "userName": "dee@acme.test"})
    assert resp.get_json()["active"] is True
    assert browser.get("/o/acme/").status_code == 200
    assert client.get(person.url("/projects"), headers=person.headers).status_code == 401


def test_token_of_one_org_cannot_touch_another(app, client, scim, globex):
    globex_scim = scim.__class__(client, globex, new_scim_token(app, globex.org_id))
    user = globex_scim.create("only-globex@globex.test")
    resp = client.get(f"{scim.base}/Users/{user['id']}", headers=scim.headers())
    assert resp.status_code == 404
    resp = client.get(f"{globex_scim.base}/Users", headers=scim.headers())
    assert resp.status_code == 401
