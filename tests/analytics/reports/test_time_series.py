"""Time as a dimension (docs/analytics.md#time): buckets in the org's time zone across
DST changes and half-hour offsets, weeks across years, empty buckets as zeros, and a
point's drill-down expression counting exactly that point's tasks."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlparse

from sqlalchemy import update

from tests.conftest import login
from tests.factories import (
    assert_problem,
    create_project,
    get_json,
    new_task,
    project_states,
    setup_project,
    state_in,
)
from workspace.core.models import Org, Task
from workspace.extensions import db


def _zone(app, org, zone: str) -> None:
    with app.app_context():
        db.session.execute(update(Org).where(Org.id == org.org_id).values(timezone=zone))
        db.session.commit()


def _tasks(app, client, org, project, states, moments, *, done=False) -> None:
    """One task per UTC moment, created (or, with ``done``, completed) then."""
    for at in moments:
        fields = {"state_id": state_in(states, "completed")} if done else {}
        task = new_task(client, org, project, **fields)
        column = "completed_at" if done else "created_at"
        with app.app_context():
            db.session.execute(
                update(Task).where(Task.id == uuid.UUID(task["id"])).values({column: at})
            )
            db.session.commit()


def _series(client, org, **params):
    body = get_json(client, org, "/analytics/custom", **params)
    return {p["key"]: p["value"] for p in body["points"]}, body


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_berlin_days_across_spring_forward(app, client, acme):
    project, states = setup_project(client, acme)
    _zone(app, acme, "Europe/Berlin")
    _tasks(
        app,
        client,
        acme,
        project,
        states,
        # 00:30 CET on the 29th; 23:59 CEST on the 29th; 00:30 CEST on the 30th.
        [utc(2026, 3, 28, 23, 30), utc(2026, 3, 29, 21, 59), utc(2026, 3, 29, 22, 30)],
    )
    values, body = _series(
        client, acme, dimension="created", interval="day", **{"from": "2026-03-28"}, to="2026-03-30"
    )
    assert values == {"2026-03-28": 0, "2026-03-29": 2, "2026-03-30": 1}
    assert body["first_day"] == "2026-03-28" and body["last_day"] == "2026-03-30"
    # The 23-hour day's link lists the same tasks: PQL's days are Berlin's too.
    login(client, acme.owner_email)
    for point in body["points"]:
        assert _listed(client, point["href"]) == point["value"], point


def test_new_york_day_across_fall_back(app, client, acme):
    project, states = setup_project(client, acme)
    _zone(app, acme, "America/New_York")
    # 23:30 EST on 1 November (the day has 25 hours); 00:30 EST on the 2nd.
    _tasks(app, client, acme, project, states, [utc(2026, 11, 2, 4, 30), utc(2026, 11, 2, 5, 30)])
    values, _ = _series(
        client, acme, dimension="created", interval="day", **{"from": "2026-11-01"}, to="2026-11-02"
    )
    assert values == {"2026-11-01": 1, "2026-11-02": 1}


def test_kolkata_weeks_cross_the_year(app, client, acme):
    project, states = setup_project(client, acme)
    _zone(app, acme, "Asia/Kolkata")
    moments = [
        utc(2025, 12, 31, 20, 0),  # 1 January 01:30 IST: the week of Monday 29 December
        utc(2026, 1, 4, 18, 29),  # Sunday 23:59 IST: still that week
        utc(2026, 1, 4, 18, 30),  # Monday 5 January 00:00 IST: the next week
    ]
    _tasks(app, client, acme, project, states, moments, done=True)
    values, body = _series(
        client,
        acme,
        dimension="completed",
        interval="week",
        metric="done",
        **{"from": "2025-12-22"},
        to="2026-01-18",
    )
    assert values == {"2025-12-22": 0, "2025-12-29": 2, "2026-01-05": 1, "2026-01-12": 0}
    # Each point's expression lists exactly its tasks: the custom chart filtered by it
    # counts the same number.
    for point in body["points"]:
        pql = parse_qs(urlparse(point["href"]).query)["pql"][0]
        counted, _ = _series(client, acme, dimension="status", filter=pql)
        assert sum(counted.values()) == point["value"], pql
    # And the list the link opens (the org task search) states the same count.
    login(client, acme.owner_email)
    for point in body["points"]:
        assert _listed(client, point["href"]) == point["value"], point


def _listed(client, href: str) -> int:
    """The count the task list behind ``href`` shows (its rows when it states none)."""
    resp = client.get(href)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    page = resp.get_data(as_text=True)
    total = re.search(r"data-task-total>([\d,]+)<", page)
    if total:
        return int(total.group(1).replace(",", ""))
    return len(re.findall(r'<tr id="task-[0-9a-f-]{36}"', page))


def test_months_and_quarters_with_empty_buckets(app, client, acme):
    project, states = setup_project(client, acme)
    _tasks(app, client, acme, project, states, [utc(2026, 2, 10, 12), utc(2026, 5, 1, 0)])
    months, _ = _series(
        client,
        acme,
        dimension="created",
        interval="month",
        **{"from": "2026-01-01"},
        to="2026-06-30",
    )
    assert list(months.values()) == [0, 1, 0, 0, 1, 0]
    quarters, _ = _series(
        client,
        acme,
        dimension="created",
        interval="quarter",
        **{"from": "2026-01-01"},
        to="2026-06-30",
    )
    assert quarters == {"2026-01-01": 1, "2026-04-01": 1}


def test_empty_range_and_bad_ranges(client, acme):
    values, _ = _series(
        client,
        acme,
        dimension="completed",
        interval="day",
        **{"from": "2026-01-01"},
        to="2026-01-01",
    )
    assert values == {"2026-01-01": 0}
    values, _ = _series(client, acme, dimension="created", interval="week")
    assert len(values) == 26
    bad = client.get(
        acme.url("/analytics/custom"),
        query_string={"dimension": "created", "from": "2026-02-01", "to": "2026-01-01"},
        headers=acme.headers,
    )
    assert_problem(bad, 422, "from")
    long = client.get(
        acme.url("/analytics/custom"),
        query_string={"dimension": "created", "interval": "day", "from": "2020-01-01"},
        headers=acme.headers,
    )
    assert_problem(long, 422, "interval")


def test_custom_tab_draws_a_time_axis_with_links(app, client, acme):
    project, states = setup_project(client, acme)
    _tasks(app, client, acme, project, states, [utc(2026, 1, 6, 12)], done=True)
    login(client, acme.owner_email)
    resp = client.get(
        f"/o/{acme.slug}/analytics/custom",
        query_string={
            "dimension": "completed",
            "interval": "week",
            "from": "2026-01-05",
            "to": "2026-01-18",
        },
    )
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    figure = json.loads(re.search(r'id="fig-custom">(.*?)</script>', html, re.S).group(1))
    assert figure["layout"]["xaxis"]["type"] == "date"
    assert figure["data"][0]["x"] == ["2026-01-05", "2026-01-12"]
    assert figure["data"][0]["y"] == [1, 0]
    assert figure["data"][0]["customdata"][0].startswith(f"/o/{acme.slug}/tasks?pql=")
    assert 'aria-label="1 2026-01-05: show these tasks"' in html
    # A range backwards is a message on the From field, not an error page.
    resp = client.get(
        f"/o/{acme.slug}/analytics/custom",
        query_string={"dimension": "created", "from": "2026-02-01", "to": "2026-01-01"},
    )
    assert resp.status_code == 200
    assert "From must be on or before To." in resp.get_data(as_text=True)


def test_completed_per_week_split_by_project(app, client, acme):
    web, web_states = setup_project(client, acme)
    mobile = create_project(client, acme, "Mobile", "MOB")
    mobile_states = project_states(client, acme, mobile["id"])
    _tasks(app, client, acme, web, web_states, [utc(2026, 1, 6), utc(2026, 1, 13)], done=True)
    _tasks(app, client, acme, mobile, mobile_states, [utc(2026, 1, 7)] * 2, done=True)
    _, body = _series(
        client,
        acme,
        dimension="completed",
        interval="week",
        split="project",
        **{"from": "2026-01-05"},
        to="2026-01-25",
    )
    assert [p["value"] for p in body["points"]] == [3, 1, 0]
    lines = {line["key"]: line["values"] for line in body["series"]}
    assert lines == {"Web App": [1, 1, 0], "Mobile": [2, 0, 0]}
    login(client, acme.owner_email)
    for line in body["series"]:
        for value, href in zip(line["values"], line["hrefs"], strict=True):
            assert f"/projects/{line['id']}" in href
            assert _listed(client, href) == value, href
    # A categorical chart has nothing to split.
    resp = client.get(
        acme.url("/analytics/custom"),
        query_string={"dimension": "status", "split": "project"},
        headers=acme.headers,
    )
    assert_problem(resp, 422, "split")


def test_a_zone_off_by_seconds_cuts_at_its_own_midnight(app, client, acme):
    # Monrovia was 44 minutes 30 seconds behind UTC until 1972: its midnights are no
    # UTC quarter hour, so no quarter hour may be put in one day whole.
    project, states = setup_project(client, acme)
    _zone(app, acme, "Africa/Monrovia")
    # 23:50 on 1 June 1971 local; 23:59:59 local; 00:05 on 2 June local.
    moments = [utc(1971, 6, 2, 0, 34, 30), utc(1971, 6, 2, 0, 44, 29), utc(1971, 6, 2, 0, 49, 30)]
    _tasks(app, client, acme, project, states, moments)
    values, _ = _series(
        client, acme, dimension="created", interval="day", **{"from": "1971-06-01"}, to="1971-06-02"
    )
    assert values == {"1971-06-01": 2, "1971-06-02": 1}


def _week_start(app, org, day: str) -> None:
    with app.app_context():
        db.session.execute(update(Org).where(Org.id == org.org_id).values(week_start=day))
        db.session.commit()


def test_sunday_weeks_across_new_year_and_dst_in_new_york(app, client, acme):
    project, states = setup_project(client, acme)
    _zone(app, acme, "America/New_York")
    _week_start(app, acme, "sunday")
    moments = [
        utc(2026, 1, 4, 4, 59),  # Saturday 3 January 23:59 EST: the week of Sunday 28 December
        utc(2026, 1, 4, 5, 0),  # Sunday 4 January 00:00 EST: the next week
        utc(2026, 1, 1, 3, 0),  # 31 December 22:00 EST: the week of 28 December
        utc(2026, 3, 8, 4, 59),  # Saturday 7 March 23:59 EST
        utc(2026, 3, 8, 5, 0),  # Sunday 8 March 00:00 EST, the day clocks spring forward
        utc(2026, 3, 15, 3, 59),  # Saturday 14 March 23:59 EDT: still that week
        utc(2026, 3, 15, 4, 0),  # Sunday 15 March 00:00 EDT
    ]
    _tasks(app, client, acme, project, states, moments, done=True)
    values, body = _series(
        client,
        acme,
        dimension="completed",
        interval="week",
        metric="done",
        **{"from": "2025-12-21"},
        to="2026-01-10",
    )
    assert values == {"2025-12-21": 0, "2025-12-28": 2, "2026-01-04": 1}
    spring, spring_body = _series(
        client,
        acme,
        dimension="completed",
        interval="week",
        metric="done",
        **{"from": "2026-03-01"},
        to="2026-03-21",
    )
    assert spring == {"2026-03-01": 1, "2026-03-08": 2, "2026-03-15": 1}
    login(client, acme.owner_email)
    for point in body["points"] + spring_body["points"]:
        assert _listed(client, point["href"]) == point["value"], point
    # Without a range: 26 weeks, each starting on a Sunday.
    default, _ = _series(client, acme, dimension="created", interval="week")
    assert {datetime.fromisoformat(k).weekday() for k in default} == {6}


def test_saturday_weeks_in_kolkata(app, client, acme):
    project, states = setup_project(client, acme)
    _zone(app, acme, "Asia/Kolkata")
    _week_start(app, acme, "saturday")
    moments = [
        utc(2026, 1, 2, 18, 29),  # Friday 2 January 23:59 IST: the week of Saturday 27 December
        utc(2026, 1, 2, 18, 30),  # Saturday 3 January 00:00 IST: the next week
        utc(2025, 12, 31, 20, 0),  # 1 January 01:30 IST: the week of 27 December
    ]
    _tasks(app, client, acme, project, states, moments)
    values, body = _series(
        client,
        acme,
        dimension="created",
        interval="week",
        **{"from": "2025-12-27"},
        to="2026-01-09",
    )
    assert values == {"2025-12-27": 2, "2026-01-03": 1}
    login(client, acme.owner_email)
    for point in body["points"]:
        assert _listed(client, point["href"]) == point["value"], point


def test_settings_page_sets_the_week_start(app, client, acme):
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings").get_data(as_text=True)
    assert '<label for="f-week-start">Weeks start on</label>' in page
    assert '<option value="monday" selected>Monday</option>' in page
    form = {"name": "Acme", "timezone": "UTC", "week_start": "sunday"}
    resp = client.post(f"/o/{acme.slug}/settings", data=form)
    assert resp.status_code == 302
    with app.app_context():
        assert db.session.get(Org, acme.org_id).week_start == "sunday"
    values, _ = _series(
        client,
        acme,
        dimension="created",
        interval="week",
        **{"from": "2026-01-01"},
        to="2026-01-10",
    )
    assert list(values) == ["2025-12-28", "2026-01-04"]
    resp = client.post(f"/o/{acme.slug}/settings", data={**form, "week_start": "someday"})
    assert resp.status_code == 400
    assert 'id="f-week-start-error"' in resp.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Org, acme.org_id).week_start == "sunday"
