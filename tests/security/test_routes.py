"""Route walks over the app's URL map: every org route declares its action, every
write owns its transaction, and every HTML org page turns away strangers.

The routes come from ``app.url_map``, so a route any package adds later is walked
without touching this file.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask

from tests.factories import create_project, login, new_task

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
HTML_ORG_PREFIX = "/o/<org>"

#: Blueprints (or single endpoints) whose org routes are not gated by a member's
#: action, and why.
NOT_MEMBER_GATED = {
    "scim": "authenticated by the org's SCIM token (before_request), not by a member",
    "scim_oauth": "the SCIM OAuth token endpoint: the client authenticates with its id "
    "and secret (Authlib), not a member",
    "sso_auth.backchannel_logout": "the identity provider posts a logout token signed by "
    "its keys (docs/sso.md#sign-out), not a member",
}

#: Endpoints that may accept writes without owning a transaction, and why.
NOT_TRANSACTIONAL = {
    "static": "serves files; it never writes",
}


def _view(app: Flask, endpoint: str):
    return app.view_functions[endpoint]


def _blueprint(endpoint: str) -> str:
    return endpoint.rpartition(".")[0]


def _member_gated(endpoint: str) -> bool:
    return not {endpoint, _blueprint(endpoint)} & NOT_MEMBER_GATED.keys()


def _is_org_rule(path: str) -> bool:
    return "<uuid:org_id>" in path or path.startswith(HTML_ORG_PREFIX)


def test_every_org_route_declares_its_action(app: Flask):
    offenders = []
    walked = 0
    for rule in app.url_map.iter_rules():
        if not _is_org_rule(rule.rule) or not _member_gated(rule.endpoint):
            continue
        walked += 1
        if getattr(_view(app, rule.endpoint), "permission_action", None) is None:
            offenders.append(f"{rule.endpoint} {rule.rule}")
    assert walked >= 25
    assert offenders == [], "org routes without a declared action:\n" + "\n".join(offenders)


def test_every_write_owns_its_transaction(app: Flask):
    offenders = []
    for rule in app.url_map.iter_rules():
        if not (rule.methods or set()) - SAFE_METHODS or rule.endpoint in NOT_TRANSACTIONAL:
            continue
        if not getattr(_view(app, rule.endpoint), "owns_transaction", False):
            writes = ",".join(sorted((rule.methods or set()) - SAFE_METHODS))
            offenders.append(f"{writes} {rule.endpoint} {rule.rule}")
    assert offenders == [], "writes outside a request transaction:\n" + "\n".join(offenders)


# -- HTML isolation walk ---------------------------------------------------------------


def html_org_routes(app: Flask) -> Iterator[tuple[str, str]]:
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(HTML_ORG_PREFIX + "/") and rule.rule != HTML_ORG_PREFIX:
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield method, rule.rule


def fill(rule: str, slug: str, ids: dict[str, str]) -> str:
    """The rule's URL for ``slug``, with the org's real objects where it has them."""

    def value(match: re.Match) -> str:
        converter, name = match.group(1), match.group(2)
        if name == "org":
            return slug
        if name in ids:
            return ids[name]
        return str(uuid.uuid4()) if converter == "uuid" else "x"

    return re.sub(r"<(?:(\w+):)?(\w+)>", value, rule)


@pytest.fixture
def acme_ids(client, acme) -> dict[str, str]:
    """Real objects of Acme for the URL arguments that name one."""
    project = create_project(client, acme)
    task = new_task(client, acme, project)
    ids = {"project_id": project["id"], "task_id": task["id"], "tab": "custom"}
    dash = client.post(acme.url("/dashboards"), json={"name": "Walk"}, headers=acme.headers)
    if dash.status_code == 201:
        ids["dashboard_id"] = dash.get_json()["id"]
        widget = client.post(
            acme.url(f"/dashboards/{ids['dashboard_id']}/widgets"),
            json={"title": "W", "chart_type": "bar"},
            headers=acme.headers,
        )
        if widget.status_code == 201:
            ids["widget_id"] = widget.get_json()["id"]
    return ids


def test_there_are_html_org_routes_to_walk(app):
    assert len(list(html_org_routes(app))) >= 20


def test_anonymous_visitors_go_to_sign_in_everywhere(client, app, acme, acme_ids):
    offenders = []
    for method, rule in html_org_routes(app):
        url = fill(rule, acme.slug, acme_ids)
        resp = client.open(url, method=method, data={})
        location = resp.headers.get("Location", "")
        if resp.status_code != 302 or not location.split("?")[0].endswith("/signin"):
            offenders.append(f"{method} {rule}: {resp.status_code} {location}")
    assert offenders == [], "not sent to sign-in:\n" + "\n".join(offenders)


def test_member_of_another_org_gets_404_everywhere(client, app, acme, globex, acme_ids):
    login(client, globex.owner_email)
    offenders = []
    for method, rule in html_org_routes(app):
        url = fill(rule, acme.slug, acme_ids)
        resp = client.open(url, method=method, data={})
        if resp.status_code != 404:
            offenders.append(f"{method} {rule}: {resp.status_code}")
    assert offenders == [], "another org's member not answered 404:\n" + "\n".join(offenders)
