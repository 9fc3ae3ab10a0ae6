"""Deny by default: every org-scoped API route, walked with the wrong caller.

The routes come from the app's URL map, so a route added by any package later is
covered without touching this test.
"""

from __future__ import annotations

import re
import uuid

import pytest

from tests.factories import create_project

ORG_PREFIX = "/api/v1/orgs/<uuid:org_id>"


def org_routes(app):
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(ORG_PREFIX):
            continue
        view = app.view_functions[rule.endpoint]
        if not getattr(view, "operation", None) or not view.operation.auth:
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield method, rule.rule


def fill(rule: str, org_id, ids: dict[str, str]) -> str:
    def value(match):
        name = match.group(1)
        if name == "org_id":
            return str(org_id)
        return ids.get(name, str(uuid.uuid4()))

    return re.sub(r"<(?:[a-z]+:)?(\w+)>", value, rule)


@pytest.fixture
def acme_objects(client, acme):
    project = create_project(client, acme)
    task = client.post(
        acme.url(f"/projects/{project['id']}/tasks"), json={"title": "T"}, headers=acme.headers
    ).get_json()
    return {"project_id": project["id"], "task_id": task["id"]}


def test_there_are_routes_to_walk(app):
    assert len(list(org_routes(app))) >= 25


def test_member_of_another_org_gets_404_everywhere(client, app, acme, globex, acme_objects):
    for method, rule in org_routes(app):
        url = fill(rule, acme.org_id, acme_objects)
        resp = client.open(url, method=method, json={}, headers=globex.headers)
        assert resp.status_code == 404, (method, url, resp.get_data(as_text=True))
        assert resp.mimetype == "application/problem+json"


#: A valid body for each route that validates its body before loading the object,
#: so that the object lookup itself is reached and must answer 404.
VALID_BODIES = {
    ("POST", "/members"): {"account_id": str(uuid.uuid4()), "role": "member"},
    ("POST", "/states"): {"name": "QA", "category": "started"},
    ("POST", "/cycles"): {"name": "Sprint 9"},
    ("POST", "/modules"): {"name": "Billing"},
    ("POST", "/tasks"): {"title": "Not yours"},
    ("POST", "/comments"): {"body": "Not yours"},
    ("POST", "/widgets/order"): {"widget_ids": [str(uuid.uuid4())]},
    ("PUT", "/enforced-sso"): {"confirm": True},
    ("POST", "/subscriptions"): {"frequency": "daily", "hour": 8},
    ("POST", "/mute"): {"period": "day"},
    ("PUT", "/alerts/<uuid:alert_id>"): {
        "widget_id": str(uuid.uuid4()),
        "condition": "above",
        "threshold": 1,
    },
}


def _valid_body(method: str, rule: str) -> dict | None:
    for (m, suffix), body in VALID_BODIES.items():
        if m == method and rule.endswith(suffix):
            return body
    return None


def test_own_org_url_with_another_orgs_objects_is_404(client, app, acme, globex, acme_objects):
    for method, rule in org_routes(app):
        if "<uuid:" not in rule.removeprefix(ORG_PREFIX):
            continue
        url = fill(rule, globex.org_id, acme_objects)
        body = _valid_body(method, rule)
        resp = client.open(url, method=method, json=body or {}, headers=globex.headers)
        if body is None and resp.status_code == 400:
            pytest.fail(f"{method} {rule} validates its body first: add a valid body above")
        assert resp.status_code == 404, (method, url, resp.get_data(as_text=True))


def test_no_token_is_401_everywhere(client, app, acme, acme_objects):
    for method, rule in org_routes(app):
        resp = client.open(fill(rule, acme.org_id, acme_objects), method=method, json={})
        assert resp.status_code == 401, (method, rule)
