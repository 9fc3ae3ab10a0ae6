"""Settings > General: rename the org and set its time zone; the slug stays."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.factories import add_person, create_agent, create_project, login
from workspace.extensions import db


def _org(app, org_id):
    from workspace.core.models import Org

    with app.app_context():
        org = db.session.get(Org, org_id)
        return org.name, org.slug, org.timezone


def _events(app, org_id):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == "org.updated")
        )
        return [(e.actor_id, dict(e.data or {})) for e in rows]


def test_rename_and_time_zone_recorded_and_slug_kept(app, client, acme):
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert '<option value="Europe/Berlin">' in html and "stays as it is" in html
    resp = client.post(
        f"/o/{acme.slug}/settings", data={"name": "  Acme Corp ", "timezone": "Europe/Berlin"}
    )
    assert resp.status_code == 302
    assert "Settings saved." in client.get(resp.headers["Location"]).get_data(as_text=True)
    assert _org(app, acme.org_id) == ("Acme Corp", "acme", "Europe/Berlin")
    assert _events(app, acme.org_id) == [
        (acme.owner_id, {"name": ["Acme", "Acme Corp"], "timezone": ["UTC", "Europe/Berlin"]})
    ]
    # Saving the same values again records nothing.
    client.post(f"/o/{acme.slug}/settings", data={"name": "Acme Corp", "timezone": "Europe/Berlin"})
    assert len(_events(app, acme.org_id)) == 1
    # Analytics and the API read the new zone.
    assert client.get(acme.url(""), headers=acme.headers).get_json()["timezone"] == "Europe/Berlin"


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({"name": "", "timezone": "UTC"}, "name", "This field is required."),
        ({"name": "x" * 201, "timezone": "UTC"}, "name", "at most 200"),
        ({"name": "Acme", "timezone": "Mars/Olympus"}, "timezone", "Choose a time zone"),
        ({"name": "Acme", "timezone": "../../etc/passwd"}, "timezone", "Choose a time zone"),
        ({"name": "Acme", "timezone": "z" * 65}, "timezone", "at most 64"),
        ({"name": "Acme"}, "timezone", "This field is required."),
    ],
)
def test_bad_input_is_shown_on_the_field(app, client, acme, data, field, message):
    login(client, acme.owner_email)
    resp = client.post(f"/o/{acme.slug}/settings", data=data)
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert f'id="f-{field}-error"' in html and message in html
    assert _org(app, acme.org_id) == ("Acme", "acme", "UTC")
    assert _events(app, acme.org_id) == []


ROLES = {"viewer": 403, "commenter": 403, "member": 403, "admin": 302, "owner": 302}


@pytest.mark.parametrize("role", list(ROLES))
def test_permission_table(app, client, acme, role):
    project = create_project(client, acme)
    who = acme
    if role != "owner":
        who = add_person(
            app, acme.org_id, f"{role}@acme.test", "admin" if role == "admin" else "member"
        )
    if role in ("viewer", "commenter", "member"):
        resp = client.post(
            acme.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(who.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code in (200, 201)
    login(client, who.owner_email)
    get = client.get(f"/o/{acme.slug}/settings")
    assert get.status_code == (200 if ROLES[role] == 302 else 403)
    resp = client.post(f"/o/{acme.slug}/settings", data={"name": "New", "timezone": "UTC"})
    assert resp.status_code == ROLES[role]
    if ROLES[role] == 403:
        assert "Only an org owner or admin can see or change these settings." in resp.get_data(
            as_text=True
        )
        assert _org(app, acme.org_id)[0] == "Acme"
    else:
        assert _org(app, acme.org_id)[0] == "New"


def test_agents_and_other_orgs(app, client, acme, globex):
    agent = create_agent(client, acme, "Bot")
    resp = client.post(
        f"/o/{acme.slug}/settings",
        data={"name": "Bot Corp", "timezone": "UTC"},
        headers={"Authorization": f"Bearer {agent['token']}"},
    )
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
    login(client, globex.owner_email)
    resp = client.post(f"/o/{acme.slug}/settings", data={"name": "Mine", "timezone": "UTC"})
    assert resp.status_code == 404
    assert _org(app, acme.org_id)[0] == "Acme"
