"""Input refused once for every route: NUL characters (PostgreSQL text cannot hold
them, SQLite can, so only one backend would show the 500) and runaway JSON nesting."""

from __future__ import annotations

from sqlalchemy import func, select

from tests.conftest import login
from workspace.core.models import Project
from workspace.extensions import db

PROBLEM = "application/problem+json"


def project_count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Project))


def test_nul_in_a_json_field_is_a_400_naming_the_field(app, client, acme):
    resp = client.post(
        acme.url("/projects"),
        json={"name": "Web\u0000App", "identifier": "WEB"},
        headers=acme.headers,
    )
    assert resp.status_code == 400 and resp.mimetype == PROBLEM
    assert "'name'" in resp.get_json()["detail"] and "NUL" in resp.get_json()["detail"]
    nested = client.post(
        acme.url("/projects"),
        json={"name": "Web", "identifier": "WEB", "extra": [{"deep": "x\u0000"}]},
        headers=acme.headers,
    )
    assert nested.status_code == 400 and "'extra.0.deep'" in nested.get_json()["detail"]
    key = client.post(acme.url("/projects"), json={"na\u0000me": "Web"}, headers=acme.headers)
    assert key.status_code == 400 and "key" in key.get_json()["detail"]
    assert project_count(app) == 0


def test_nul_in_a_query_parameter_is_a_400(client, acme):
    resp = client.get(
        acme.url("/analytics/custom?filter=priority%20%3D%20%22a%00b%22"), headers=acme.headers
    )
    assert resp.status_code == 400 and resp.mimetype == PROBLEM
    assert "'filter'" in resp.get_json()["detail"]


def test_nul_in_a_form_field_is_a_readable_400_page(app, client, acme):
    login(client, acme.owner_email)
    resp = client.post(f"/o/{acme.slug}/projects", data={"name": "Web\x00", "identifier": "WEB"})
    assert resp.status_code == 400 and resp.mimetype == "text/html"
    assert "contains a NUL character" in resp.get_data(as_text=True)
    assert project_count(app) == 0


def test_json_nested_too_deeply_is_a_400_not_a_recursion_crash(app, client, acme):
    for body in ("[" * 100_000, '{"name": ' + "[" * 40 + "]" * 40 + "}"):
        resp = client.post(
            acme.url("/projects"),
            data=body,
            headers={**acme.headers, "Content-Type": "application/json"},
        )
        assert resp.status_code == 400, body[:20]
        assert resp.mimetype == PROBLEM
    assert "nested more than" in resp.get_json()["detail"]
    assert project_count(app) == 0


def test_ordinary_unicode_passes(client, acme):
    resp = client.post(
        acme.url("/projects"),
        json={"name": "Équipe ✓ 数据", "identifier": "EQ"},
        headers=acme.headers,
    )
    assert resp.status_code == 201 and resp.get_json()["name"] == "Équipe ✓ 数据"
