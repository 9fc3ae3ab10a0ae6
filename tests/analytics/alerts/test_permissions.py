"""Who reaches each alert route (docs/delivery.md#alerts), against an alert of Acme's
owner on a published dashboard:

- its creator (the owner): everything;
- an org admin and a member: list and create their own; the owner's alert is a 404;
- another org's owner: 404 everywhere (the org gate);
- an agent: 403 everywhere (agents read no mail);
- the anonymous: 401 on the API, sent to sign in on the pages."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.analytics.alerts.conftest import Team
from tests.factories import add_person, bearer, create_agent, login
from workspace.analytics.alerts.models import Alert
from workspace.extensions import db

API = [
    ("get", "/alerts", None),
    ("post", "/alerts", "new"),
    ("get", "/alerts/{alert}", None),
    ("put", "/alerts/{alert}", "change"),
    ("post", "/alerts/{alert}/mute", {"period": "hour"}),
    ("post", "/alerts/{alert}/unmute", None),
    ("delete", "/alerts/{alert}", None),
]
API_TABLE = {
    "owner": [200, 201, 200, 200, 200, 200, 204],
    "admin": [200, 201, 404, 404, 404, 404, 404],
    "member": [200, 201, 404, 404, 404, 404, 404],
    "other_org": [404, 404, 404, 404, 404, 404, 404],
    "agent": [403, 403, 403, 403, 403, 403, 403],
    "anonymous": [401, 401, 401, 401, 401, 401, 401],
}
PAGES = [
    ("get", "/alerts", None),
    ("get", "/dashboards/{dashboard}/alerts/new", None),
    ("post", "/dashboards/{dashboard}/alerts/new", "new"),
    ("get", "/alerts/{alert}", None),
    ("get", "/alerts/{alert}/edit", None),
    ("post", "/alerts/{alert}/edit", "change"),
    ("post", "/alerts/{alert}/mute", {"period": "week"}),
    ("post", "/alerts/{alert}/unmute", {}),
    ("get", "/alerts/{alert}/remove", None),
    ("post", "/alerts/{alert}/remove", {}),
]
PAGE_TABLE = {
    "owner": [200, 200, 303, 200, 200, 303, 303, 303, 200, 303],
    "admin": [200, 200, 303, 404, 404, 404, 404, 404, 404, 404],
    "member": [200, 200, 303, 404, 404, 404, 404, 404, 404, 404],
    "other_org": [404, 404, 404, 404, 404, 404, 404, 404, 404, 404],
    "anonymous": [302, 302, 302, 302, 302, 302, 302, 302, 302, 302],
}


def _owners_alert(client, team: Team) -> str:
    answer = team.alert(client)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"]


def _headers(app, client, team: Team, role: str) -> dict[str, str]:
    world = team.world
    return {
        "owner": lambda: world.acme.headers,
        "member": lambda: world.member.headers,
        "admin": lambda: add_person(app, world.acme.org_id, "ada@acme.test", "admin").headers,
        "other_org": lambda: world.globex.headers,
        "agent": lambda: bearer(create_agent(client, world.acme)["token"]),
        "anonymous": lambda: {},
    }[role]()


@pytest.mark.parametrize("role", list(API_TABLE))
def test_api_permission_table(app, client, team: Team, role):
    headers = _headers(app, client, team, role)
    new = {"dashboard_id": team.dashboard_id, "widget_id": team.widget_id,
           "condition": "below", "threshold": 1}  # fmt: skip
    got = []
    for method, path, body in API:
        url = team.world.acme.url(path.format(alert=_owners_alert(client, team)))
        if isinstance(body, str):
            body = {"new": new, "change": {**new, "threshold": 5}}[body]
        answer = getattr(client, method)(url, json=body, headers=headers)
        got.append(answer.status_code)
    assert got == API_TABLE[role]


@pytest.mark.parametrize("role", list(PAGE_TABLE))
def test_page_permission_table(app, client, team: Team, role):
    world = team.world
    if role != "anonymous":
        email = {
            "owner": world.acme.owner_email,
            "member": world.member.owner_email,
            "other_org": world.globex.owner_email,
        }.get(role) or add_person(app, world.acme.org_id, "ada@acme.test", "admin").owner_email
    new = {"widget_id": team.widget_id, "condition": "above", "threshold": "3",
           "interval_minutes": "15"}  # fmt: skip
    got = []
    for method, path, form in PAGES:
        url = f"/o/{world.acme.slug}" + path.format(
            alert=_owners_alert(client, team), dashboard=team.dashboard_id
        )
        if role != "anonymous":
            login(client, email)
        if isinstance(form, str):
            form = {"new": new, "change": {**new, "threshold": "5"}}[form]
        answer = getattr(client, method)(url, data=form)
        got.append(answer.status_code)
        client.post("/signout")
    assert got == PAGE_TABLE[role]
    with app.app_context():
        mine = db.session.scalar(
            select(func.count()).select_from(Alert).where(Alert.account_id == world.acme.owner_id)
        )
    # One of the owner's per route; the owner's form made one more and removed one.
    assert mine == len(PAGES)
