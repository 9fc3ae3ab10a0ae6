"""The Monte Carlo forecast (docs/analytics.md#forecast-dates): dates for the open work
at 50/85/95% confidence from the sampled daily throughput, checked against
calculations made here without the service, with the history empty, and for a PQL
selection; the API (and its OpenAPI document) and the Forecast tab say what was sampled."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from tests.conftest import login
from tests.factories import (
    assert_problem,
    get_json,
    make_org,
    new_task,
    rollups_consistent,
    setup_project,
    state_in,
)
from workspace.analytics import montecarlo
from workspace.core.models import Org, Task, TaskActivity
from workspace.extensions import db

PATH = "/analytics/forecast/dates"


def _completions(app, org, task_id: str, per_day: list[int]) -> None:
    """``per_day[i]`` completions (history rows into the completed category) on the
    i-th of the days before today, oldest first, at noon UTC (the org's zone)."""
    today = datetime.now(UTC).date()
    with app.app_context():
        for i, n in enumerate(per_day):
            day = today - timedelta(days=len(per_day) - i)
            for k in range(n):
                db.session.add(
                    TaskActivity(
                        org_id=org.org_id,
                        task_id=uuid.UUID(task_id),
                        field="state",
                        old_value="In Progress",
                        new_value="Done",
                        old_category="started",
                        new_category="completed",
                        created_at=datetime.combine(day, time(12, k), UTC),
                    )
                )
        db.session.commit()


def _setup(app, client, open_tasks: int, per_day: list[int], **fields):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    sink = new_task(client, org, project, title="Done", state_id=state_in(states, "completed"))
    # Neither cancelled nor completed work is open work.
    new_task(client, org, project, title="Dropped", state_id=state_in(states, "cancelled"))
    started = state_in(states, "started")
    for i in range(open_tasks):
        extra = {k: v(i) for k, v in fields.items()}
        new_task(client, org, project, title=f"Open {i}", state_id=started, **extra)
    _completions(app, org, sink["id"], per_day)
    return org, project


def test_constant_throughput_gives_the_same_day_at_every_level(app, client):
    """2 a day, 20 open: done on day 10 in every run, and 14 days would finish 28,
    so all 20 are done in the next two weeks at every level."""
    org, _ = _setup(app, client, 20, [2] * 84)
    result = get_json(client, org, PATH)
    today = datetime.now(UTC).date()
    assert result["open"] == 20 and result["runs"] == 10_000 and result["message"] is None
    assert result["sample"] == {
        "first_day": (today - timedelta(days=84)).isoformat(),
        "last_day": (today - timedelta(days=1)).isoformat(),
        "days": 84,
        "completed": 168,
    }
    assert result["sampled"].startswith("12 weeks of daily throughput, ")
    assert result["sampled"].endswith(", 84 days, 168 completed; 10,000 runs")
    assert [
        (r["level"], r["days"], r["date"], r["done_next_two_weeks"]) for r in result["levels"]
    ] == [(level, 10, (today + timedelta(days=10)).isoformat(), 20) for level in (50, 85, 95)]
    # The same inputs draw the same runs: a reload shows the same dates.
    assert get_json(client, org, PATH) == result
    # Four weeks sampled: 28 days, 56 completed, the same days to finish.
    short = get_json(client, org, PATH, weeks=4)
    assert short["sample"]["days"] == 28 and short["sample"]["completed"] == 56
    assert [r["days"] for r in short["levels"]] == [10, 10, 10]
    assert rollups_consistent(app)


def test_days_without_completions_are_sampled_as_zeros(app, client):
    """A quarter of the days complete 10, the rest none, and one task is open: a run
    finishes on day k with probability 0.75**(k-1) * 0.25, so P(done by k) is
    1 - 0.75**k. The levels are the first k where that reaches 50, 85 and 95%; the
    next two weeks finish the one task in 1 - 0.75**14 = 98% of the runs."""
    values = [10 if i % 4 == 0 else 0 for i in range(84)]
    expected = [next(k for k in range(1, 100) if 1 - 0.75**k >= p) for p in (0.5, 0.85, 0.95)]
    assert expected == [3, 7, 11]
    found = montecarlo.simulate(1, values, 10_000, seed=7)["levels"]
    assert [r["days"] for r in found] == expected
    assert [r["done_next_two_weeks"] for r in found] == [1, 1, 1]
    # Through the API, with a seed from the inputs: the same days within the
    # sampling error (a day either side at 95%, where 0.9437 and 0.9578 are close).
    org, _ = _setup(app, client, 1, values)
    levels = get_json(client, org, PATH)["levels"]
    assert [r["days"] for r in levels][:2] == [3, 7] and levels[2]["days"] in (10, 11, 12)


def test_simulate_agrees_with_the_normal_approximation():
    """At 2 to 6 a day (mean 4, variance 1.9) and 400 open, the days to finish are
    about normal around 100, sd sqrt(100 * 1.9) / 4 = 3.4: the levels sit at
    z = 0, 1.04 and 1.64 sd, within two days."""
    values = [2, 3, 4, 5, 6] * 16 + [4, 4, 4, 4]
    levels = montecarlo.simulate(400, values, 10_000, seed=1)["levels"]
    mean, sd = 400 / 4, math.sqrt(400 / 4 * 1.9) / 4
    for row, z in zip(levels, (0.0, 1.04, 1.64), strict=True):
        assert abs(row["days"] - (mean + z * sd)) <= 2, row
    # The next two weeks: 14 days at mean 4 = 56, sd sqrt(14 * 1.9) = 5.2; at 85% the
    # runs do at least about 56 - 1.04 * 5.2.
    next_two = [row["done_next_two_weeks"] for row in levels]
    assert next_two == sorted(next_two, reverse=True)
    assert abs(next_two[1] - (56 - 1.04 * math.sqrt(14 * 1.9))) <= 2


def test_no_history_gives_a_message_and_no_dates(app, client):
    org, _ = _setup(app, client, 3, [])
    result = get_json(client, org, PATH)
    assert result["open"] == 3 and result["runs"] == 0 and result["levels"] == []
    assert "Nothing was completed in the last 12 weeks" in result["message"]
    assert result["sample"]["completed"] == 0
    assert result["sampled"].endswith("0 completed; not simulated")
    # No open work at all says so too.
    empty = make_org(app, "Globex", "owner@globex.test")
    none = get_json(client, empty, PATH)
    assert none["open"] == 0 and none["levels"] == [] and "No open work" in none["message"]


def test_a_pql_selection_forecasts_its_open_work_only(app, client):
    """10 of 20 open tasks are urgent: at 2 a day, those are done on day 5."""
    org, project = _setup(
        app, client, 20, [2] * 84, priority=lambda i: "urgent" if i % 2 else "low"
    )
    result = get_json(client, org, PATH, filter="priority = urgent")
    assert result["open"] == 10 and result["filter"] == "priority = urgent"
    assert [r["days"] for r in result["levels"]] == [5, 5, 5]
    assert [r["done_next_two_weeks"] for r in result["levels"]] == [10, 10, 10]
    scoped = get_json(client, org, PATH, project_id=project["id"], filter="priority = low")
    assert scoped["open"] == 10 and scoped["sample"]["completed"] == 168
    other = make_org(app, "Globex", "owner@globex.test")
    assert get_json(client, other, PATH)["open"] == 0


def test_bad_inputs_are_4xx_with_the_field(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    for weeks in (1, 27, "x"):
        resp = client.get(org.url(PATH), query_string={"weeks": weeks}, headers=org.headers)
        assert_problem(resp, 400, "weeks")
    resp = client.get(org.url(PATH), query_string={"filter": "priority = "}, headers=org.headers)
    assert_problem(resp, 422)


def test_the_openapi_document_describes_it(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    op = spec["paths"]["/api/v1/orgs/{org_id}/analytics/forecast/dates"]["get"]
    assert {p["name"] for p in op["parameters"]} >= {"project_id", "weeks", "filter"}
    # The spec's forecast stays as it was.
    assert "/api/v1/orgs/{org_id}/analytics/forecast" in spec["paths"]


def test_the_forecast_tab_shows_the_dates_and_what_was_sampled(app, client):
    org, _ = _setup(app, client, 20, [2] * 84)
    login(client, org.owner_email)
    today = datetime.now(UTC).date()
    html = client.get(f"/o/{org.slug}/analytics/forecast").get_data(as_text=True)
    assert "When will the open work be done?" in html
    assert "84 days, 168 completed; 10,000 runs" in html
    done_by = today + timedelta(days=10)
    assert html.count(done_by.strftime("%a %-d %b %Y")) == 3
    # The spec's weekly figures are still there.
    assert "Average per week" in html and "Completed per week" in html
    # The open count opens its tasks.
    assert "isCounted()+AND+statusCategory+IN+(backlog,+unstarted,+started)" in html
    selected = client.get(
        f"/o/{org.slug}/analytics/forecast", query_string={"filter": 'title ~ "nothing like this"'}
    ).get_data(as_text=True)
    assert "No open work in this selection" in selected


def test_the_sample_is_whole_days_in_a_quarter_hour_zone(app, client):
    """Nepal is UTC+5:45: its days start inside a UTC hour, the hourly rollup's unit.
    Completions five minutes either side of the sample's first and last midnight:
    only the two inside the 84 days are sampled."""
    org, _ = _setup(app, client, 1, [])
    zone = ZoneInfo("Asia/Kathmandu")
    with app.app_context():
        db.session.get(Org, org.org_id).timezone = zone.key
        db.session.commit()
    today = datetime.now(UTC).astimezone(zone).date()
    edges = [
        datetime.combine(day, time(), zone).astimezone(UTC)
        for day in (today - timedelta(days=84), today)
    ]
    assert all(edge.minute == 15 for edge in edges)
    with app.app_context():
        done = db.session.scalar(select(Task.id).where(Task.title == "Done"))
        for edge in edges:
            for offset in (-5, 5):
                db.session.add(
                    TaskActivity(
                        org_id=org.org_id,
                        task_id=done,
                        field="state",
                        old_value="In Progress",
                        new_value="Done",
                        old_category="started",
                        new_category="completed",
                        created_at=edge + timedelta(minutes=offset),
                    )
                )
        db.session.commit()
    result = get_json(client, org, PATH)
    assert result["sample"]["first_day"] == (today - timedelta(days=84)).isoformat()
    assert result["sample"]["completed"] == 2
    assert rollups_consistent(app)


def test_a_bad_selection_on_the_tab_says_what_to_fix(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    login(client, org.owner_email)
    resp = client.get(f"/o/{org.slug}/analytics/forecast", query_string={"filter": "priority = "})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html[:300]
    assert 'aria-invalid="true"' in html and "PQL error at line 1, column 11" in html
    assert 'aria-describedby="forecast-filter-help forecast-filter-error"' in html


def test_work_beyond_three_years_has_no_date():
    """At most 2 a day, 2,200 open cannot be done in 1,095 days: no date at any level,
    and the next two weeks still do 14 to 28."""
    levels = montecarlo.simulate(2_200, [1, 2] * 42, 10_000, seed=3)["levels"]
    assert [r["days"] for r in levels] == [None, None, None]
    assert all(14 <= r["done_next_two_weeks"] <= 28 for r in levels)
    # Just within reach: 2 a day every day, 2,190 open, day 1,095 in every run.
    levels = montecarlo.simulate(2_190, [2] * 84, 10_000, seed=3)["levels"]
    assert [r["days"] for r in levels] == [1_095] * 3
