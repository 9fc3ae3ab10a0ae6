"""Who reaches each webhook route and the JSON lines export: org owners and admins.
A member and an agent get a 403, another org's owner a 404 (this org, or this org's
endpoint id in their own org's URL), the anonymous a 401; none changes anything or
sees a secret."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import func, select

from tests.factories import add_person, bearer, create_agent, login
from workspace.core.events import record_event
from workspace.delivery.webhooks.models import WebhookEndpoint
from workspace.extensions import db

ROUTES = [
    ("get", "/webhooks", 200),
    ("post", "/webhooks", 201),
    ("get", "/webhooks/{e}", 200),
    ("patch", "/webhooks/{e}", 200),
    ("delete", "/webhooks/{e}", 204),
    ("post", "/webhooks/{e}/rotate", 200),
    ("post", "/webhooks/{e}/test", 202),
    ("get", "/webhooks/{e}/deliveries", 200),
    ("get", "/webhooks/{e}/deliveries/{d}", 200),
    ("post", "/webhooks/{e}/deliveries/{d}/redeliver", 202),
]


@pytest.fixture
def endpoint(app, client, acme, receiver):
    resp = client.post(acme.url("/webhooks"), headers=acme.headers,
                       json={"url": receiver.url("/ok/perm"), "kinds": ["*"]})  # fmt: skip
    assert resp.status_code == 201
    e = resp.get_json()["id"]
    resp = client.post(acme.url(f"/webhooks/{e}/test"), headers=acme.headers)
    d = resp.get_json()["id"]
    with app.app_context():  # attempted once, so redeliver applies
        from workspace.delivery.webhooks import sending

        sending.attempt(uuid.UUID(d))
        db.session.commit()
    return e, d


def _call(client, org_url, method, path, endpoint, headers):
    e, d = endpoint
    body = {"url": "https://example.com/h", "kinds": ["task.*"]}
    if method == "patch":
        body = {"description": "changed"}
    return getattr(client, method)(org_url(path.format(e=e, d=d)), headers=headers,
                                   json=body if method in ("post", "patch") else None)  # fmt: skip


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(WebhookEndpoint))


@pytest.mark.parametrize(("method", "path", "ok"), ROUTES)
def test_admins_may(app, client, acme, endpoint, monkeypatch, method, path, ok):
    """(Owners: every test in test_delivery.py.)"""
    # example.com must resolve for create; the test keeps the URL of the fixture's host.
    monkeypatch.setattr("workspace.security.outbound._resolve",
                        lambda *a, **k: [(2, 1, 6, "", ("93.184.215.14", 443))])  # fmt: skip
    person = add_person(app, acme.org_id, "ad@acme.test", "admin")
    resp = _call(client, acme.url, method, path, endpoint, person.headers)
    assert resp.status_code == ok, resp.get_data(as_text=True)


@pytest.mark.parametrize(("method", "path", "ok"), ROUTES)
@pytest.mark.parametrize(("who", "expected"), [("member", 403), ("agent", 403),
                                               ("other_org", 404), ("anonymous", 401)])  # fmt: skip
def test_others_may_not(app, client, acme, globex, endpoint, method, path, ok, who, expected):
    before = _count(app)
    headers = {
        "member": lambda: add_person(app, acme.org_id, "m@acme.test").headers,
        "agent": lambda: bearer(create_agent(client, acme)["token"]),
        "other_org": lambda: globex.headers,
        "anonymous": lambda: {},
    }[who]()
    resp = _call(client, acme.url, method, path, endpoint, headers)
    assert resp.status_code == expected, resp.get_data(as_text=True)
    assert _count(app) == before
    assert "whsec_" not in resp.get_data(as_text=True)


@pytest.mark.parametrize(("method", "path", "ok"), [r for r in ROUTES if "{e}" in r[1]])
def test_another_orgs_endpoint_is_not_found(app, client, acme, globex, endpoint, method, path,
                                            ok):  # fmt: skip
    """Globex's owner, in Globex's own API, naming Acme's endpoint: 404, nothing changes."""
    resp = _call(client, globex.url, method, path, endpoint, globex.headers)
    assert resp.status_code == 404
    assert _count(app) == 1


@pytest.mark.parametrize(("who", "status"), [("owner", 200), ("admin", 200), ("member", 403),
                                             ("other_org", 404)])  # fmt: skip
def test_json_lines_export(app, client, acme, globex, who, status):
    with app.app_context():
        record_event(acme.org_id, "scim.user.provisioned", subject="a@acme.test", n=1)
        record_event(acme.org_id, "member.role_changed", subject="b@acme.test", n=2)
        db.session.commit()
    email = {"owner": acme.owner_email, "other_org": globex.owner_email}.get(who)
    if email is None:
        email = add_person(app, acme.org_id, f"{who}@acme.test", who).owner_email
    login(client, email)
    resp = client.get(f"/o/{acme.slug}/settings/events.jsonl?since=2000-01-01&kind=scim.")
    assert resp.status_code == status
    if status != 200:
        assert b"a@acme.test" not in resp.data
        return
    assert resp.mimetype == "application/x-ndjson"
    rows = [json.loads(x) for x in resp.get_data(as_text=True).splitlines()]
    assert [r["kind"] for r in rows] == ["scim.user.provisioned"]
    assert rows[0]["subject"] == "a@acme.test" and rows[0]["data"] == {"n": 1}
    assert rows[0]["time"].endswith("Z")
    # A range that ends before the events: nothing. A bad date: a 400 saying which.
    empty = client.get(f"/o/{acme.slug}/settings/events.jsonl?until=2000-01-01T00:00:00Z")
    assert empty.status_code == 200 and empty.data == b""
    bad = client.get(f"/o/{acme.slug}/settings/events.jsonl?since=yesterday")
    assert bad.status_code == 400 and b"since" in bad.data
