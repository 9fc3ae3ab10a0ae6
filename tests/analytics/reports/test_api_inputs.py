"""Bad inputs are 400/404 problems naming the field; never a 500. Access rules."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.factories import add_person, new_task
from workspace.core.models import Org
from workspace.extensions import db


def problem(resp, status, field=None):
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["detail"]
    if field:
        assert field in {e["field"] for e in body.get("errors", [])}, body
    return body


@pytest.mark.parametrize(
    "params,field",
    [
        ({"weeks": "1"}, "weeks"),
        ({"weeks": "27"}, "weeks"),
        ({"weeks": "soon"}, "weeks"),
    ],
)
def test_bad_weeks(client, acme, params, field):
    problem(
        client.get(acme.url("/analytics/forecast"), query_string=params, headers=acme.headers),
        400,
        field,
    )


@pytest.mark.parametrize(
    "path,params,field",
    [
        ("pivot", {"row": "colour"}, "row"),
        ("pivot", {"col": "cycle"}, "col"),
        ("custom", {"dimension": "mood"}, "dimension"),
        ("custom", {"metric": "velocity"}, "metric"),
        ("custom", {"priority": "asap"}, "priority"),
        ("scatter", {"dimension": "status"}, "dimension"),
        ("overview", {"project_id": "not-a-uuid"}, "project_id"),
    ],
)
def test_unknown_dimension_metric_or_malformed_input(client, acme, path, params, field):
    problem(
        client.get(acme.url(f"/analytics/{path}"), query_string=params, headers=acme.headers),
        400,
        field,
    )


def test_unknown_status_name_is_422(client, acme):
    body = problem(
        client.get(
            acme.url("/analytics/custom"), query_string={"status": "Doen"}, headers=acme.headers
        ),
        422,
        "status",
    )
    assert "Doen" in body["detail"]


@pytest.mark.parametrize(
    "path", ["overview", "flow", "workload", "scatter", "forecast", "pivot", "custom", "export.csv"]
)
def test_project_of_another_org_is_404(client, acme, globex, path):
    other = client.post(
        globex.url("/projects"), json={"name": "Secret"}, headers=globex.headers
    ).get_json()
    for project_id in (other["id"], str(uuid.uuid4())):
        problem(
            client.get(
                acme.url(f"/analytics/{path}"),
                query_string={"project_id": project_id},
                headers=acme.headers,
            ),
            404,
            "project_id",
        )


def test_authentication_and_org_isolation(client, acme, globex):
    assert client.get(acme.url("/analytics/overview")).status_code == 401
    assert client.get(acme.url("/analytics/export.csv")).status_code == 401
    # A token is bound to its org: on another org's URL it finds nothing.
    problem(client.get(acme.url("/analytics/overview"), headers=globex.headers), 404)
    bad = {"Authorization": "Bearer ws_nope"}
    problem(client.get(acme.url("/analytics/overview"), headers=bad), 401)


def test_any_member_may_read_analytics(app, client, acme):
    member = add_person(app, acme.org_id, "member@acme.test")
    resp = client.get(acme.url("/analytics/overview"), headers=member.headers)
    assert resp.status_code == 200
    assert resp.get_json()["completion_rate"] == 0  # nothing in scope: 0, not an error


def test_empty_org_gives_zeros_everywhere(client, acme):
    overview = client.get(acme.url("/analytics/overview"), headers=acme.headers).get_json()
    assert overview["total"] == 0 and overview["completion_rate"] == 0
    assert overview["by_category"] == dict.fromkeys(
        ["backlog", "unstarted", "started", "completed", "cancelled"], 0
    )
    assert set(overview["by_priority"]) == {"urgent", "high", "medium", "low", "none"}
    assert set(overview["by_kind"]) == {"task", "bug", "feature", "epic"}
    forecast = client.get(acme.url("/analytics/forecast"), headers=acme.headers).get_json()
    assert forecast["projected_next_week"] == 0 and len(forecast["series"]) == 8
    assert client.get(acme.url("/analytics/workload"), headers=acme.headers).get_json() == []


def _task(client, org, project, **fields):
    return new_task(client, org, project, **{"title": "T", **fields})


def test_overdue_uses_the_org_time_zone(app, client, acme):
    """Due dates compare with today where the org is, not in UTC."""
    with app.app_context():
        db.session.get(Org, acme.org_id).timezone = "Pacific/Kiritimati"  # UTC+14
        db.session.commit()
    org_today = (
        datetime.now(UTC).astimezone(__import__("zoneinfo").ZoneInfo("Pacific/Kiritimati")).date()
    )
    project = client.post(
        acme.url("/projects"), json={"name": "Web"}, headers=acme.headers
    ).get_json()
    _task(client, acme, project, due_date=(org_today - timedelta(days=1)).isoformat())
    _task(client, acme, project, due_date=org_today.isoformat())
    _task(client, acme, project)
    overview = client.get(acme.url("/analytics/overview"), headers=acme.headers).get_json()
    assert (overview["total"], overview["overdue"]) == (3, 1)


def test_forecast_counts_entering_done_once(client, acme):
    """A move between two done states is not a second completion; reopening and
    finishing again is."""
    project = client.post(
        acme.url("/projects"), json={"name": "Web"}, headers=acme.headers
    ).get_json()
    states = {
        s["name"]: s["id"]
        for s in client.get(
            acme.url(f"/projects/{project['id']}/states"), headers=acme.headers
        ).get_json()
    }
    client.post(
        acme.url(f"/projects/{project['id']}/states"),
        json={"name": "Shipped", "category": "completed"},
        headers=acme.headers,
    )
    states = {
        s["name"]: s["id"]
        for s in client.get(
            acme.url(f"/projects/{project['id']}/states"), headers=acme.headers
        ).get_json()
    }
    task = _task(client, acme, project)
    url = acme.url(f"/tasks/{task['id']}")
    for name in ("Done", "Shipped", "Todo", "Done"):
        client.patch(url, json={"state_id": states[name]}, headers=acme.headers)
    # All of this happened this week, which the window (full weeks) leaves out.
    forecast = client.get(acme.url("/analytics/forecast"), headers=acme.headers).get_json()
    assert sum(p["completed"] for p in forecast["series"]) == 0
    wl = client.get(acme.url("/analytics/workload"), headers=acme.headers).get_json()
    assert wl == []  # nobody is assigned


@pytest.mark.parametrize(
    "params,field",
    [
        ({"filter": 'title ~ "a\x00b"'}, "filter"),
        ({"status": "Do\x00ne"}, "status"),
    ],
)
def test_nul_characters_are_refused_not_sent_to_the_database(client, acme, params, field):
    problem(
        client.get(acme.url("/analytics/custom"), query_string=params, headers=acme.headers),
        400,
        field,
    )
