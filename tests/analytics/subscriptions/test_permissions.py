"""Who reaches each subscription route (docs/delivery.md#who-may-do-what), on a
published dashboard of Acme's owner, against the owner's own subscription:

- the dashboard's owner: everything, everyone's subscriptions;
- an org admin and a member (who read the dashboard but may not edit it): subscribe
  themselves, list their own; the owner's subscription is a 404 to them;
- another org's owner: 404 everywhere;
- an agent: reads the list (its own: none), takes no subscription action (403);
- the anonymous: 401 on the API, sent to sign in on the pages.

The dashboards' own rule decides who edits: the owner only (docs/dashboards.md)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.analytics.subscriptions.conftest import Team, subscribe
from tests.factories import add_person, bearer, create_agent, login
from workspace.analytics.subscriptions.models import Subscription
from workspace.extensions import db

API = [
    ("get", "/subscriptions", None),
    ("post", "/subscriptions", {"frequency": "daily", "hour": 8}),
    ("get", "/subscriptions/{sub}", None),
    ("delete", "/subscriptions/{sub}", None),
    ("post", "/subscriptions/{sub}/send", None),
]
#: (role) -> status per API route, in the order of API.
API_TABLE = {
    "owner": [200, 201, 200, 204, 202],
    "admin": [200, 201, 404, 404, 404],
    "member": [200, 201, 404, 404, 404],
    "other_org": [404, 404, 404, 404, 404],
    "agent": [200, 403, 404, 403, 403],
    "anonymous": [401, 401, 401, 401, 401],
}
PAGES = [
    ("get", "/subscriptions", None),
    ("post", "/subscriptions", {"frequency": "daily", "hour": "8"}),
    ("post", "/subscriptions/{sub}/send", {}),
    ("get", "/subscriptions/{sub}/remove", None),
    ("post", "/subscriptions/{sub}/remove", {}),
]
#: Agents sign in with tokens only, so they have no page session: not in this table.
PAGE_TABLE = {
    "owner": [200, 303, 303, 200, 303],
    "admin": [200, 303, 404, 404, 404],
    "member": [200, 303, 404, 404, 404],
    "other_org": [404, 404, 404, 404, 404],
    "anonymous": [302, 302, 302, 302, 302],
}


def _owners_subscription(client, team: Team) -> str:
    answer = subscribe(client, team, team.world.acme)
    assert answer.status_code == 201
    return answer.get_json()["id"]


def _headers(app, client, team: Team, role: str) -> dict[str, str]:
    world = team.world
    if role == "owner":
        return world.acme.headers
    if role == "member":
        return world.member.headers
    if role == "admin":
        return add_person(app, world.acme.org_id, "ada@acme.test", role="admin").headers
    if role == "other_org":
        return world.globex.headers
    if role == "agent":
        return bearer(create_agent(client, world.acme)["token"])
    return {}


@pytest.mark.parametrize("role", list(API_TABLE))
def test_api_permission_table(app, client, team: Team, role):
    headers = _headers(app, client, team, role)
    got = []
    for method, path, body in API:
        url = team.url(path.format(sub=_owners_subscription(client, team)))
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
        }.get(role) or add_person(app, world.acme.org_id, "ada@acme.test", role="admin").owner_email
    got = []
    for method, path, form in PAGES:
        url = team.url(path.format(sub=_owners_subscription(client, team)))
        url = url.replace(f"/api/v1/orgs/{world.acme.org_id}", f"/o/{world.acme.slug}")
        if role != "anonymous":
            login(client, email)
        answer = getattr(client, method)(url, data=form)
        got.append(answer.status_code)
        client.post("/signout")
    assert got == PAGE_TABLE[role]
    with app.app_context():
        count = db.session.scalar(select(func.count()).select_from(Subscription))
    # The owner removed theirs last; everyone else may have subscribed themselves.
    assert count == (1 if role in ("admin", "member") else 0) + (0 if role == "owner" else 1)
