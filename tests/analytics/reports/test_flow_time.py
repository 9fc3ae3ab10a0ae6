"""Flow over time (docs/analytics.md#flow-over-time): cycle time and the cumulative
flow diagram over hand-built histories, whose answers the tests work out from the
histories as written here (a task started Monday and done Thursday took 3 days)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.analytics.histories import build_histories
from tests.factories import (
    assert_problem,
    create_project,
    login,
    make_org,
)

CATEGORIES = ("backlog", "unstarted", "started", "completed", "cancelled")


def at(day: int, hour: int = 12, minute: int = 0) -> datetime:
    """A moment of November 2026 in UTC (2 November is a Monday)."""
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


#: Each task: its history as (moment, category), creation first; the last is now.
HISTORIES: dict[str, list[tuple[datetime, str]]] = {
    # Started Monday, done Thursday: 3 days.
    "mon-thu": [(at(2, 9), "backlog"), (at(2), "started"), (at(5), "completed")],
    # Started, sent back, started again: the first start counts (4.5 days).
    "restarted": [
        (at(1), "unstarted"),
        (at(3), "started"),
        (at(4), "unstarted"),
        (at(6), "started"),
        (at(8, 0), "completed"),
    ],
    # Never started: left out of cycle time, counted as such.
    "no-start": [(at(2), "backlog"), (at(8), "completed")],
    # Created straight into a started state: it starts at its creation (1.25 days).
    "born-started": [(at(9, 6), "started"), (at(10, 12), "completed")],
    # Open work and a cancellation, for the flow diagram.
    "open": [(at(3), "backlog"), (at(4, 23, 30), "unstarted")],
    "cancelled": [(at(1), "started"), (at(6), "cancelled")],
    # Completed before the range: in the diagram's completed band, not in cycle time.
    "old-done": [(at(1, 1), "started"), (at(1, 2), "completed")],
}


def _build(app, client, org, zone: str = "UTC") -> dict[str, str]:
    """The tasks of HISTORIES with exactly their written history (histories.py)."""
    return build_histories(app, client, org, HISTORIES, zone)


def _expected_flow(first: date, last: date, zone: str) -> list[dict]:
    """Per day, each task's category at the day's end (midnight after it, in ``zone``):
    the last entry of its history before then."""
    tz = ZoneInfo(zone)
    days = []
    day = first
    while day <= last:
        end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tz)
        counts = dict.fromkeys(CATEGORIES, 0)
        for history in HISTORIES.values():
            before = [category for moment, category in history if moment < end]
            if before:
                counts[before[-1]] += 1
        days.append({"day": day.isoformat(), **counts})
        day += timedelta(days=1)
    return days


def test_cycle_time_from_first_start_to_completion(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    ids = _build(app, client, org)
    resp = client.get(
        org.url("/analytics/cycle-time"),
        query_string={"from": "2026-11-02", "to": "2026-11-30"},
        headers=org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    days = {p["title"]: p["days"] for p in body["points"]}
    assert days == {"mon-thu": 3.0, "restarted": 4.5, "born-started": 1.25}
    assert body["completed_without_start"] == 1
    # Each point opens its own task.
    login(client, org.owner_email)
    for point in body["points"]:
        assert point["task_id"] == ids[point["title"]]
        page = client.get(point["href"])
        assert page.status_code == 200
        assert point["title"] in page.get_data(as_text=True)
    # Percentiles of 1.25, 3, 4.5 by linear interpolation (percentile_cont).
    assert {p["p"]: p["days"] for p in body["percentiles"]} == {50: 3.0, 85: 4.05, 95: 4.35}


def test_cycle_time_range_is_in_the_org_time_zone(app, client):
    """ "mon-thu" is done 5 November 12:00 UTC, which is the 6th in Kiritimati (+14):
    a range ending on the 5th there leaves it out."""
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org, zone="Pacific/Kiritimati")
    body = client.get(
        org.url("/analytics/cycle-time"),
        query_string={"from": "2026-11-01", "to": "2026-11-05"},
        headers=org.headers,
    ).get_json()
    assert "mon-thu" not in [p["title"] for p in body["points"]]
    body = client.get(
        org.url("/analytics/cycle-time"),
        query_string={"from": "2026-11-06", "to": "2026-11-06"},
        headers=org.headers,
    ).get_json()
    assert [p["title"] for p in body["points"]] == ["mon-thu"]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_cumulative_flow_counts_each_day_from_the_history(app, client, zone):
    """New York leaves summer time on 1 November; Kolkata is 5:30 ahead, so the
    move at 23:30 UTC on the 4th is the 5th there."""
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org, zone=zone)
    resp = client.get(
        org.url("/analytics/cumulative-flow"),
        query_string={"from": "2026-10-30", "to": "2026-11-12"},
        headers=org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["days"] == _expected_flow(date(2026, 10, 30), date(2026, 11, 12), zone)
    # A hand-checked day: at the end of Wednesday 4 November (UTC) "mon-thu" and
    # "cancelled" are started, "restarted" is back in unstarted and "open" moved there
    # at 23:30, "no-start" is in backlog, "old-done" is completed; "born-started" is
    # not made yet.
    if zone == "UTC":
        day = next(d for d in body["days"] if d["day"] == "2026-11-04")
        assert day == {
            "day": "2026-11-04",
            "backlog": 1,
            "unstarted": 2,
            "started": 2,
            "completed": 1,
            "cancelled": 0,
        }


def test_filter_and_project_scope(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org)
    query = {"from": "2026-11-02", "to": "2026-11-30", "filter": 'title ~ "mon"'}
    body = client.get(
        org.url("/analytics/cycle-time"), query_string=query, headers=org.headers
    ).get_json()
    assert [p["title"] for p in body["points"]] == ["mon-thu"]
    other = create_project(client, org, "Ops", "OPS")
    body = client.get(
        org.url("/analytics/cumulative-flow"),
        query_string={"from": "2026-11-02", "to": "2026-11-03", "project_id": other["id"]},
        headers=org.headers,
    ).get_json()
    assert all(d[c] == 0 for d in body["days"] for c in CATEGORIES)


def test_bad_ranges_say_what_to_fix(app, client):
    """A range the model takes but the service cannot (reversed, too long, out of the
    days it can hold) is a 422 on the field; a malformed date a 400."""
    org = make_org(app, "Acme", "owner@acme.test")
    url = org.url("/analytics/cumulative-flow")
    resp = client.get(
        url, query_string={"from": "2026-11-05", "to": "2026-11-01"}, headers=org.headers
    )
    assert_problem(resp, 422, "from")
    resp = client.get(
        url, query_string={"from": "2024-01-01", "to": "2026-11-01"}, headers=org.headers
    )
    assert_problem(resp, 422, "from")
    resp = client.get(url, query_string={"to": "0001-01-01"}, headers=org.headers)
    assert_problem(resp, 422, "to")
    # Not a date at all: the input model refuses it.
    resp = client.get(url, query_string={"from": "yesterday"}, headers=org.headers)
    assert_problem(resp, 400, "from")
    # Another org's people see nothing of this one.
    outsider = make_org(app, "Globex", "owner@globex.test")
    assert client.get(url, headers=outsider.headers).status_code == 404


def test_default_range_is_the_last_90_days(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    body = client.get(org.url("/analytics/cumulative-flow"), headers=org.headers).get_json()
    assert len(body["days"]) == 90
    assert body["end"] == body["days"][-1]["day"]


def test_the_page_draws_both_charts_with_labelled_controls(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org)
    login(client, org.owner_email)
    resp = client.get(
        f"/o/{org.slug}/analytics/flow-time?from=2026-11-02&to=2026-11-30&filter=kind%20%3D%20task"
    )
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    for control in ('for="flow-from"', 'for="flow-to"', 'for="flow-filter"'):
        assert control in html
    assert 'id="fig-cfd"' in html and 'id="fig-cycle"' in html
    assert "Completed without a start" in html
    assert 'value="2026-11-02"' in html
    # Changing the scope keeps the range: the scope form carries it under the names
    # the page reads (from/to, not the model's from_).
    assert '<input type="hidden" name="from" value="2026-11-02">' in html
    assert '<input type="hidden" name="to" value="2026-11-30">' in html
    # A filter the page cannot read is a message, not an error page.
    resp = client.get(f"/o/{org.slug}/analytics/flow-time?filter=priority%20%3D%3D")
    assert resp.status_code in (200, 400, 422)
    assert 'class="form-error" role="alert"' in resp.get_data(as_text=True)


def test_a_task_archived_since_leaves_every_day(app, client):
    """Both charts count the tasks that count today: archiving "mon-thu" takes it out
    of cycle time and out of every past day of the diagram."""
    org = make_org(app, "Acme", "owner@acme.test")
    ids = _build(app, client, org)
    query = {"from": "2026-11-02", "to": "2026-11-06"}
    before = client.get(
        org.url("/analytics/cumulative-flow"), query_string=query, headers=org.headers
    ).get_json()["days"]
    resp = client.patch(
        org.url(f"/tasks/{ids['mon-thu']}"), json={"archived": True}, headers=org.headers
    )
    assert resp.status_code == 200, resp.get_json()
    after = client.get(
        org.url("/analytics/cumulative-flow"), query_string=query, headers=org.headers
    ).get_json()["days"]
    # 2-4 November it was started, from the 5th completed.
    for old, new in zip(before, after, strict=True):
        band = "started" if new["day"] < "2026-11-05" else "completed"
        assert new[band] == old[band] - 1
    cycle = client.get(
        org.url("/analytics/cycle-time"), query_string=query, headers=org.headers
    ).get_json()
    assert "mon-thu" not in [p["title"] for p in cycle["points"]]


def test_both_figures_are_what_plotly_draws():
    """Read back through graph objects (which validate every property), the figures
    come out unchanged; every cycle-time point carries its task's link first."""
    import plotly.graph_objects as go

    from workspace.analytics import flow_charts

    moment = at(5)
    cycle = {
        "start": date(2026, 11, 1),
        "end": date(2026, 11, 30),
        "points": [
            {"key": "WEB-1", "title": "<b>x</b>", "completed_at": moment, "days": 3.0,
             "href": "/o/acme/tasks/WEB-1"},
        ],
        "percentiles": [{"p": 50, "days": 3.0}, {"p": 85, "days": 3.0}, {"p": 95, "days": 3.0}],
    }  # fmt: skip
    flow = {
        "categories": list(CATEGORIES),
        "days": [{"day": date(2026, 11, 1), **dict.fromkeys(CATEGORIES, 1)}],
    }
    for figure in (
        flow_charts.cycle_time_figure(cycle).to_plotly_json(),
        flow_charts.cumulative_flow_figure(flow).to_plotly_json(),
    ):
        assert go.Figure(figure).to_plotly_json() == figure
    points = flow_charts.cycle_time_figure(cycle).to_plotly_json()["data"][0]
    assert points["customdata"][0][0] == "/o/acme/tasks/WEB-1"
    assert "<b>" not in str(points["customdata"])


def test_the_document_lists_both_endpoints_and_their_range(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    for name in ("cycle-time", "cumulative-flow"):
        path = next(p for p in doc["paths"] if p.endswith(f"/analytics/{name}"))
        params = {p["name"] for p in doc["paths"][path]["get"]["parameters"]}
        assert {"from", "to", "filter", "project_id"} <= params
        assert "422" in doc["paths"][path]["get"]["responses"]
