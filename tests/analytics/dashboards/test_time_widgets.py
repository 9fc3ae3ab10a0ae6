"""Widgets over time and the dashboard's date range (docs/dashboards.md#time): time
settings saved over the API and the form, refused with the field named, the
dashboard's range applied and a view's and a widget's own overriding it, composed
with the PQL layers, every point linking to exactly its tasks, and the exports."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select, update

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import assert_problem, login
from workspace.core.models import Project, Task
from workspace.extensions import db

#: Days before today each of Acme's six tasks (conftest.TASKS) was created, at noon
#: UTC (the org's zone); the two Done tasks were completed a day later.
CREATED_AGO = {
    "Login fails": 1,
    "Add SSO": 3,
    "Typo on page": 10,
    "Old crash": 20,
    "Disk full": 45,
    "Rotate keys": 200,
}


@pytest.fixture
def dated(app, world: World) -> World:
    today = datetime.now(UTC).date()
    with app.app_context():
        tasks = db.session.scalars(
            select(Task)
            .join(Project, Project.id == Task.project_id)
            .where(Project.org_id == world.acme.org_id)
        ).all()
        assert sorted(t.title for t in tasks) == sorted(CREATED_AGO)
        for task in tasks:
            ago = CREATED_AGO[task.title]
            at = datetime.combine(today - timedelta(days=ago), datetime.min.time(), UTC)
            values = {"created_at": at + timedelta(hours=12)}
            if task.completed_at is not None:
                values["completed_at"] = at + timedelta(days=1, hours=12)
            db.session.execute(update(Task).where(Task.id == task.id).values(values))
        db.session.commit()
    return world


def _compute(client, world: World, dash_id: str, **params) -> dict:
    resp = client.get(
        world.url(f"/dashboards/{dash_id}/compute"), query_string=params, headers=world.acme.headers
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return {w["title"]: w for w in resp.get_json()["widgets"]}


def _total(widget: dict) -> int:
    return sum(p["value"] for p in widget["points"])


def _patch(client, world: World, path: str, body: dict):
    return client.patch(world.url(path), json=body, headers=world.acme.headers)


def test_time_settings_over_the_api(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(
        client,
        world.acme,
        dash["id"],
        dimension="completed",
        interval="month",
        range="last_90_days",
        split="project",
        chart_type="area",
    )
    assert {k: widget[k] for k in ("dimension", "interval", "range", "from", "to", "split")} == {
        "dimension": "completed",
        "interval": "month",
        "range": "last_90_days",
        "from": None,
        "to": None,
        "split": "project",
    }
    assert widget["title"] == "Tasks completed per month"
    path = f"/dashboards/{dash['id']}/widgets/{widget['id']}"
    # The range is one setting: custom days replace the preset.
    changed = _patch(client, world, path, {"from": "2026-01-05", "to": "2026-03-01"}).get_json()
    assert (changed["range"], changed["from"], changed["to"]) == (None, "2026-01-05", "2026-03-01")
    # An unrecognized interval or split is the default, as every widget setting.
    changed = _patch(client, world, path, {"interval": "fortnight", "split": "colour"}).get_json()
    assert (changed["interval"], changed["split"]) == ("week", None)
    # Back to one of the five: the time-only settings go with the time dimension.
    changed = _patch(client, world, path, {"dimension": "status"}).get_json()
    assert (changed["dimension"], changed["from"], changed["to"]) == ("status", None, None)
    read = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert read.get_json()["widgets"][0]["dimension"] == "status"


@pytest.mark.parametrize(
    "body,status,field",
    [
        ({"dimension": "created", "range": "yesterday"}, 400, "range"),
        ({"dimension": "created", "from": "2026-13-01"}, 400, "from"),
        ({"dimension": "created", "to": 20260101}, 400, "to"),
        ({"dimension": "created", "from": "2026-03-02", "to": "2026-03-01"}, 422, "from"),
        ({"dimension": "created", "range": "last_7_days", "from": "2026-03-01"}, 422, "range"),
        ({"dimension": "created", "from": "1960-01-01"}, 422, "from"),
        (
            {"dimension": "created", "interval": "day", "from": "2024-01-01", "to": "2025-12-31"},
            422,
            "interval",
        ),
        ({"dimension": "status", "split": "project"}, 422, "split"),
        ({"dimension": "kind", "range": "this_quarter"}, 422, "range"),
        # Custom days without a day had been saved as no range, without a word.
        ({"dimension": "created", "range": "custom"}, 422, "from"),
    ],
)
def test_time_settings_refused_naming_the_field(client, world: World, body, status, field):
    dash = new_dashboard(client, world.acme)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets"), json=body, headers=world.acme.headers
    )
    assert_problem(resp, status, field)
    read = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert read.get_json()["widgets"] == []


def test_the_five_dimensions_answer_as_before(client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="S", dimension="status")
    widget = _compute(client, world, dash["id"])["S"]
    custom = client.get(
        world.url("/analytics/custom"),
        query_string={"dimension": "status"},
        headers=world.acme.headers,
    ).get_json()
    assert widget["points"] == [{"key": p["key"], "value": p["value"]} for p in custom["points"]]
    assert widget["time"] is None


def test_dashboard_range_applied_overridden_and_composed(client, dated: World):
    world = dated
    dash = new_dashboard(client, world.acme, range="last_7_days")
    assert (dash["range"], dash["from"], dash["to"]) == ("last_7_days", None, None)
    did = dash["id"]
    add_widget(client, world.acme, did, title="Per day", dimension="created", interval="day")
    add_widget(client, world.acme, did, title="Own", dimension="created", range="last_90_days")
    add_widget(client, world.acme, did, title="Bugs", dimension="created", filter="kind = bug")
    first = _compute(client, world, did)
    # Created 1 and 3 days ago; every one of the 7 days is a point, zeros included.
    assert _total(first["Per day"]) == 2 and len(first["Per day"]["points"]) == 7
    assert first["Per day"]["time"]["range_source"] == "dashboard"
    assert sorted(p["value"] for p in first["Per day"]["points"]) == [0, 0, 0, 0, 0, 1, 1]
    # The widget's own range wins over the dashboard's: 1, 3, 10, 20 and 45 days ago.
    assert _total(first["Own"]) == 5 and first["Own"]["time"]["range_source"] == "widget"
    assert _total(first["Bugs"]) == 1  # Login fails (1 day ago) is the only bug in 7 days
    # A view's range overrides the dashboard's, not a widget's own.
    view = _compute(client, world, did, range="last_30_days")
    assert (_total(view["Per day"]), _total(view["Own"])) == (4, 5)
    assert view["Per day"]["time"]["range_source"] == "view"
    none = _compute(client, world, did, range="none")
    assert none["Per day"]["time"]["range_source"] == "default"  # the last 90 days by day
    assert _total(none["Per day"]) == 5
    today = datetime.now(UTC).date()
    custom = _compute(
        client, world, did, **{"from": (today - timedelta(days=25)).isoformat()}, to=str(today)
    )
    assert _total(custom["Per day"]) == 4 and len(custom["Per day"]["points"]) == 26
    # The dashboard's PQL layer and the view filter compose with the range.
    _patch(client, world, f"/dashboards/{did}", {"pql_filter": "priority = high"})
    layered = _compute(client, world, did, range="last_90_days", filter="kind = bug")
    # High-priority bugs created in 90 days: Login fails, Old crash, Disk full.
    assert _total(layered["Per day"]) == 3
    # A saved custom range; sending "to" alone replaces the preset.
    saved = _patch(client, world, f"/dashboards/{did}", {"to": str(today)}).get_json()
    assert (saved["range"], saved["from"], saved["to"]) == (None, None, str(today))


@pytest.mark.parametrize(
    "params,status,field",
    [
        ({"range": "fortnight"}, 400, "range"),
        ({"from": "2026-13-01"}, 400, "from"),
        ({"from": "2026-02-30"}, 422, "from"),  # spelt as a day, but none on the calendar
        ({"from": "2026-03-02", "to": "2026-03-01"}, 422, "from"),
    ],
)
def test_view_range_refused_naming_the_field(client, world: World, params, status, field):
    dash = new_dashboard(client, world.acme)
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/compute"),
        query_string=params,
        headers=world.acme.headers,
    )
    assert_problem(resp, status, field)


def test_dashboard_range_refused_naming_the_field(client, world: World):
    resp = client.post(
        world.url("/dashboards"), json={"name": "X", "range": "someday"}, headers=world.acme.headers
    )
    assert_problem(resp, 400, "range")
    dash = new_dashboard(client, world.acme)
    resp = _patch(
        client, world, f"/dashboards/{dash['id']}", {"from": "2026-05-02", "to": "2026-05-01"}
    )
    assert_problem(resp, 422, "from")


def _listed(client, href: str) -> int:
    """The count the task list behind ``href`` shows."""
    resp = client.get(href)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    page = resp.get_data(as_text=True)
    total = re.search(r"data-task-total>([\d,]+)<", page)
    if total:
        return int(total.group(1).replace(",", ""))
    return len(re.findall(r'<tr id="task-[0-9a-f-]{36}"', page))


def _figure(html: str, key: str) -> dict:
    found = re.search(rf'<script type="application/json" id="fig-{key}">(.*?)</script>', html, re.S)
    assert found, html[:500]
    return json.loads(found.group(1))


def test_every_point_drills_to_exactly_its_tasks(client, dated: World):
    world = dated
    dash = new_dashboard(client, world.acme, range="last_30_days", pql_filter="priority = high")
    done = add_widget(client, world.acme, dash["id"], dimension="completed", interval="week")
    split = add_widget(
        client, world.acme, dash["id"], dimension="created", interval="week", split="kind"
    )
    login(client, world.acme.owner_email)
    page = f"/o/{world.acme.slug}/dashboards/{dash['id']}"
    html = client.get(page + "/bodies", query_string={"filter": "kind = bug"}).get_data(
        as_text=True
    )
    (trace,) = _figure(html, done["id"])["data"]
    assert _figure(html, done["id"])["layout"]["xaxis"]["type"] == "date"
    # Old crash (high, bug) was completed 19 days ago: one week holds it.
    assert sum(trace["y"]) == 1
    for value, href in zip(trace["y"], trace["customdata"], strict=True):
        assert _listed(client, href) == value, href
    # Split: a stacked trace per kind, each bucket a link to exactly its tasks.
    traces = _figure(html, split["id"])["data"]
    assert {t["name"] for t in traces} == {"Bug"}
    for t in traces:
        for value, href in zip(t["y"], t["customdata"], strict=True):
            assert _listed(client, href) == value, href


def test_number_and_table_over_time(client, dated: World):
    world = dated
    dash = new_dashboard(client, world.acme, range="last_30_days")
    number = add_widget(client, world.acme, dash["id"], chart_type="number", dimension="created")
    table = add_widget(
        client, world.acme, dash["id"], chart_type="table", dimension="created", interval="week"
    )
    login(client, world.acme.owner_email)
    html = client.get(f"/o/{world.acme.slug}/dashboards/{dash['id']}/bodies").get_data(as_text=True)
    number_body = html.split(f'id="body-{number["id"]}"')[1].split('id="body-')[0]
    # The number is the total over the range: created 1, 3, 10 and 20 days ago.
    assert 'class="headline-value"' in number_body and ">4</a>" in number_body
    assert "Last 30 days</p>" in number_body  # a number has no buckets to name
    table_body = html.split(f'id="body-{table["id"]}"')[1]
    assert "Week (created)" in table_body and "Week of " in table_body


def test_widget_form_saves_and_refuses_time_settings(client, world: World):
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    url = f"/o/{world.acme.slug}/dashboards/{dash['id']}/widgets/new"
    form = {"dimension": "completed", "interval": "month", "split": "", "action": "save"}
    bad = client.post(
        url, data={**form, "range": "custom", "from": "2026-04-02", "to": "2026-04-01"}
    )
    assert bad.status_code == 400
    text = bad.get_data(as_text=True)
    assert "From must be on or before To." in text and 'id="f-from-error"' in text
    patched = client.patch(
        world.url(f"/dashboards/{dash['id']}"), json={"range": "custom"}, headers=world.acme.headers
    )
    assert_problem(patched, 422, "from")
    settings = f"/o/{world.acme.slug}/dashboards/{dash['id']}/settings"
    refused = client.post(settings, data={"name": "Team", "range": "custom", "from": "", "to": ""})
    assert refused.status_code in (400, 422)
    assert "Custom days need a From day" in refused.get_data(as_text=True)
    dayless = client.post(url, data={**form, "range": "custom", "from": "", "to": ""})
    assert dayless.status_code == 400
    assert "Custom days need a From day, a To day or both." in dayless.get_data(as_text=True)
    # Days left in From/To while a preset is chosen are not a second range.
    ok = client.post(url, data={**form, "range": "last_quarter", "from": "2026-04-02", "to": ""})
    assert ok.status_code == 303
    custom = client.post(
        url, data={**form, "range": "custom", "from": "2026-01-01", "to": "2026-03-31"}
    )
    assert custom.status_code == 303
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    widgets = saved.get_json()["widgets"]
    assert [(w["range"], w["from"], w["to"], w["interval"]) for w in widgets] == [
        ("last_quarter", None, None, "month"),
        (None, "2026-01-01", "2026-03-31", "month"),
    ]
    preview = client.post(url, data={**form, "chart_type": "line", "action": "preview"})
    assert preview.status_code == 200 and '"type":"date"' in preview.get_data(as_text=True).replace(
        " ", ""
    )


def test_page_range_control_and_settings(client, dated: World):
    world = dated
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="T", chart_type="number", dimension="created")
    login(client, world.acme.owner_email)
    page = f"/o/{world.acme.slug}/dashboards/{dash['id']}"
    html = client.get(page, query_string={"range": "last_7_days", "from": "", "to": ""}).get_data(
        as_text=True
    )
    assert '<label for="view-range">Date range</label>' in html
    assert '<option value="last_7_days" selected>' in html
    # The cards' bodies are asked for with the view's range.
    assert "range=last_7_days" in html
    bad = client.get(
        page, query_string={"range": "custom", "from": "2026-03-02", "to": "2026-03-01"}
    )
    assert bad.status_code == 400 and 'id="view-range-error"' in bad.get_data(as_text=True)
    # What was asked stays in the control, to correct: not the saved range.
    shown = bad.get_data(as_text=True)
    assert '<option value="custom" selected>' in shown
    assert 'id="view-from" name="from" value="2026-03-02"' in shown
    assert 'id="view-to" name="to" value="2026-03-01"' in shown
    resp = client.post(
        page + "/settings",
        data={"name": "Team", "pql_filter": "", "range": "last_90_days", "from": "", "to": ""},
    )
    assert resp.status_code == 303
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["range"] == "last_90_days"


def test_exports_show_the_time_widgets(client, dated: World):
    world = dated
    dash = new_dashboard(client, world.acme, range="last_30_days")
    widget = add_widget(client, world.acme, dash["id"], dimension="created", chart_type="bar")
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/export.html"),
        query_string={"range": "last_7_days"},
        headers=world.acme.headers,
    )
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    figure = _figure(html, widget["id"])
    assert figure["layout"]["xaxis"]["type"] == "date"
    assert sum(figure["data"][0]["y"]) == 2  # the view's last 7 days: 1 and 3 days ago
    assert "Last 7 days, per week (this view)" in html


def test_the_pdf_job_keeps_the_views_range(app, client, world: World):
    from workspace.analytics.dashboards import ranges
    from workspace.jobs.models import Job

    dash = new_dashboard(client, world.acme, range="last_90_days")
    add_widget(client, world.acme, dash["id"], dimension="created")
    started = client.post(
        world.url(f"/dashboards/{dash['id']}/exports"),
        query_string={"range": "custom", "from": "2026-01-01", "to": "2026-01-31"},
        headers=world.acme.headers,
    )
    assert started.status_code == 202, started.get_data(as_text=True)
    with app.app_context():
        job = db.session.get(Job, uuid.UUID(started.get_json()["id"]))
        assert ranges.from_query(job.args["range"]) == ranges.DateRange(
            None, date(2026, 1, 1), date(2026, 1, 31)
        )
    refused = client.post(
        world.url(f"/dashboards/{dash['id']}/exports"),
        query_string={"from": "2026-02-30"},
        headers=world.acme.headers,
    )
    assert_problem(refused, 422, "from")


def test_an_ask_reading_over_time_is_saved_as_a_widget(app, client, dated: World):
    """agents/widgets.save_as_widget keeps a time reading's interval, range and split."""
    from workspace.agents.widgets import save_as_widget
    from workspace.core.models import Account
    from workspace.security.permissions import org_access

    world = dated
    dash = new_dashboard(client, world.acme)
    with app.app_context():
        access = org_access(world.acme.org_id, db.session.get(Account, world.acme.owner_id))
        save_as_widget(
            access,
            uuid.UUID(dash["id"]),
            title="Bugs created per week",
            metric="count",
            dimension="created",
            kind="bug",
            interval="week",
            preset="last_30_days",
            split="priority",
            pql="priority = high",
        )
        db.session.commit()
    widget = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    saved = widget.get_json()["widgets"][0]
    assert (saved["chart_type"], saved["dimension"], saved["interval"]) == (
        "area",
        "created",
        "week",
    )
    assert (saved["range"], saved["split"]) == ("last_30_days", "priority")
    assert saved["filter"] == "(kind = bug) AND (priority = high)"
    computed = _compute(client, world, dash["id"])["Bugs created per week"]
    # High-priority bugs created in the last 30 days: Login fails and Old crash.
    assert _total(computed) == 2 and computed["time"]["split"] == "priority"


def test_weekly_widgets_follow_the_orgs_week_start(app, client, dated: World):
    from workspace.core.models import Org

    world = dated
    with app.app_context():
        db.session.execute(
            update(Org).where(Org.id == world.acme.org_id).values(week_start="sunday")
        )
        db.session.commit()
    dash = new_dashboard(client, world.acme, range="last_90_days")
    add_widget(client, world.acme, dash["id"], title="W", dimension="created", interval="week")
    widget = _compute(client, world, dash["id"])["W"]
    starts = {date.fromisoformat(p["key"]).weekday() for p in widget["points"]}
    assert starts == {6} and _total(widget) == 5  # Sundays; 1, 3, 10, 20, 45 days ago
