"""The answer's reading as controls (docs/ai.md#correcting-the-reading): prefilled from
what was read, redrawn from the custom chart's own query with no model call and no
credit, and a bad value refused on its field."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from tests.agents.conftest import configure_model, make_project, make_task, states_by_name
from tests.conftest import login
from workspace.agents.models import AiRun
from workspace.extensions import db

HX = {"HX-Request": "true"}


@pytest.fixture
def work(client, acme):
    """Web App: a Done bug (the owner's) and a Todo bug; Mobile: an unassigned Done task."""
    web, mobile = make_project(client, acme), make_project(client, acme, "Mobile", "MOB")
    web_states, mobile_states = (states_by_name(client, acme, p["id"]) for p in (web, mobile))
    owner = str(acme.owner_id)
    make_task(client, acme, web["id"], kind="bug", state_id=web_states["Done"], assignee_id=owner)
    make_task(client, acme, web["id"], kind="bug", state_id=web_states["Todo"], assignee_id=owner)
    make_task(client, acme, mobile["id"], kind="task", state_id=mobile_states["Done"])
    login(client, acme.owner_email)
    return {"web": web, "mobile": mobile}


def ask_box(client, org, text):
    resp = client.post(f"/o/{org.slug}/analytics/ask", data={"text": text}, headers=HX)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def redraw(client, org, headers=HX, **params):
    return client.get(f"/o/{org.slug}/analytics/ask/chart", query_string=params, headers=headers)


def selected(html, name):
    """The value chosen in the reading's select ``name``."""
    select = re.search(rf'<select id="f-ask-{name}".*?</select>', html, re.S).group(0)
    return re.search(r'<option value="([^"]*)" selected>', select).group(1)


def typed(html, name):
    found = re.search(
        rf'<input type="\w+" id="f-ask-{name}" name="{name}"( value="([^"]*)")?', html
    )
    return found.group(2) or ""


def rows(html):
    """The answer table's rows: (value, count), by value, in lower case (the table
    writes them as the chart does, "Bug", in the chart's order)."""
    body = re.search(r"<tbody>(.*?)</tbody>", html, re.S).group(1)
    found = re.findall(r"<td>([^<]*)</td><td class=\"num\">(\d+)", body)
    return sorted((k.lower(), int(n)) for k, n in found)


def custom(client, org, **params):
    """The custom chart's points as :func:`rows` reads the table."""
    resp = client.get(org.url("/analytics/custom"), query_string=params, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return sorted((p["key"].lower(), p["value"]) for p in resp.get_json()["points"])


def runs(app):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(AiRun))


def test_a_time_reading_is_prefilled_in_the_controls(client, acme, work):
    html = ask_box(client, acme, "tasks completed per week this quarter")
    assert "Read as:</strong> Done tasks, per week, completed this quarter." in html
    assert [selected(html, n) for n in ("metric", "dimension", "interval", "range", "split")] == [
        "done",
        "completed",
        "week",
        "this_quarter",
        "",
    ]
    assert typed(html, "filter") == "" and typed(html, "from") == ""
    # Every control has its label; the form redraws into the answer's place.
    for name in ("metric", "dimension", "priority", "interval", "split", "range", "from", "to"):
        assert f'<label for="f-ask-{name}">' in html
    assert 'hx-get="/o/acme/analytics/ask/chart" hx-target="#ask-result"' in html


def test_a_category_reading_is_prefilled_and_the_words_not_used_are_kept(client, acme, work):
    html = ask_box(client, acme, "urgent tasks overdue per project in Narnia")
    assert [selected(html, n) for n in ("metric", "dimension", "priority", "range")] == [
        "count",
        "project",
        "urgent",
        "",
    ]
    assert typed(html, "filter") == "isOverdue()"
    assert '<input type="hidden" name="unused" value="narnia">' in html
    edited = redraw(client, acme, metric="count", dimension="project", unused="narnia")
    assert "Not used from your request: &ldquo;narnia&rdquo;" in edited.get_data(as_text=True)


def test_calendar_words_are_named_and_new_narrowings_run_as_pql(client, acme, work):
    """ "this week" is no preset: named whole, so the member sets From and To; several
    priorities and "in progress" are filters the custom chart runs (a filter it refused
    would be named as not used)."""
    html = ask_box(client, acme, "tasks completed this week")
    assert "Not used: &ldquo;this week&rdquo;" in html and selected(html, "metric") == "done"
    body = client.post(
        acme.url("/analytics/ask"),
        json={"text": "high and urgent bugs in progress by assignee"},
        headers=acme.headers,
    ).get_json()
    assert body["unused"] == [] and body["understood"]["filter"] == (
        "kind = bug AND statusCategory = started AND priority IN (urgent, high)"
    )


def test_the_default_chart_still_answers_what_is_not_understood(client, acme, work):
    html = ask_box(client, acme, "zzz qqq")
    assert "Work items by status" in html and "default chart" in html
    assert selected(html, "metric") == "count" and selected(html, "dimension") == "status"


def test_edited_controls_redraw_the_custom_chart_with_no_model_and_no_credit(
    app, client, acme, work, fake_model
):
    configure_model(client, acme, fake_model)
    asked = client.post(
        acme.url("/analytics/ask"), json={"text": "open bugs by assignee"}, headers=acme.headers
    )
    assert asked.get_json()["outcome"] == "ok"
    used = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()["used"]
    calls, before = len(fake_model.requests), runs(app)
    assert used > 0 and calls == 1

    # By project, done bugs only: the member corrects metric, dimension and filter.
    resp = redraw(client, acme, metric="done", dimension="project", filter="kind = bug")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "<html" not in html
    assert "Now showing:</strong> Done tasks, by project, where kind = bug." in html
    assert "<h2>Completed bugs by project</h2>" in html
    assert rows(html) == custom(
        client, acme, metric="done", dimension="project", filter="kind = bug"
    )
    assert ("web app", 1) in rows(html) and selected(html, "dimension") == "project"

    # Over time: completed per day over the last 7 days, seven buckets, two done today.
    html = redraw(
        client, acme, metric="done", dimension="completed", interval="day", range="last_7_days"
    ).get_data(as_text=True)
    assert len(rows(html)) == 7 and sum(n for _, n in rows(html)) == 2
    assert selected(html, "interval") == "day" and selected(html, "range") == "last_7_days"

    # A from/to range narrows a chart by one of the five on the completion day.
    today = date.today()
    html = redraw(
        client, acme, metric="done", dimension="project", to=str(today - timedelta(days=2))
    ).get_data(as_text=True)
    assert sum(n for _, n in rows(html)) == 0
    assert "completed to " in html

    assert len(fake_model.requests) == calls and runs(app) == before
    after = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()["used"]
    assert after == used


def test_without_javascript_the_redraw_is_the_ask_page(client, acme, work):
    resp = redraw(client, acme, headers={}, metric="open", dimension="kind")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "<html" in html and "<h1>Ask for a chart</h1>" in html
    assert rows(html) == custom(client, acme, metric="open", dimension="kind")


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"interval": "fortnight", "dimension": "created"}, "interval", "Input should be"),
        ({"dimension": "velocity"}, "dimension", "Input should be"),
        ({"filter": "priority = = high"}, "filter", "PQL error"),
        ({"filter": "x" * 2001}, "filter", "at most 2000 characters"),
        ({"from": "2026-13-01"}, "from", "Enter a date as YYYY-MM-DD"),
        ({"from": "2026-05-02", "to": "2026-05-01"}, "from", "on or before"),
        (
            {"dimension": "created", "interval": "day", "from": "2025-01-01", "to": "2026-06-30"},
            "interval",
            "more than 366",
        ),
        ({"split": "project", "dimension": "status"}, "split", "splits only a time"),
    ],
)
def test_a_bad_value_is_shown_on_its_field(client, acme, work, params, field, message):
    resp = redraw(client, acme, **params, unused="narnia")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400, html[:300]
    error = re.search(rf'<span class="field-error" id="f-ask-{field}-error">([^<]*)<', html)
    assert error and message in error.group(1), html
    assert 'aria-invalid="true"' in html and "<html" not in html
    # What was typed stays in the controls, and no chart is drawn from it.
    if field == "filter" and len(params["filter"]) < 100:
        assert typed(html, "filter") == params["filter"].replace('"', "&#34;")
    assert "data-plotly" not in html and "Fix the marked value" in html
    assert "&ldquo;narnia&rdquo;" in html


def test_the_controls_keep_the_project_asked_from(client, acme, work):
    mobile = work["mobile"]["id"]
    resp = client.post(
        f"/o/{acme.slug}/analytics/ask",
        data={"text": "done by project", "project_id": mobile},
        headers=HX,
    )
    html = resp.get_data(as_text=True)
    assert f'<input type="hidden" name="project_id" value="{mobile}">' in html
    html = redraw(client, acme, metric="done", dimension="kind", project_id=mobile)
    assert rows(html.get_data(as_text=True)) == custom(
        client, acme, metric="done", dimension="kind", project_id=mobile
    )
    # A project id that is not one, or names no project of this org: refused, never a 500.
    bad = redraw(client, acme, project_id="not-an-id").get_data(as_text=True)
    assert "valid UUID" in bad
    gone = redraw(client, acme, project_id="00000000-0000-4000-8000-000000000000")
    assert gone.status_code == 404


def _save(client, org, html, dashboard_id):
    """Post the answer's Save form as the browser would; the widget it made."""
    form = re.search(r'<form method="post" action="[^"]*/ask/save".*?</form>', html, re.S)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))
    fields = {k: v.replace("&#34;", '"') for k, v in fields.items()}
    resp = client.post(
        f"/o/{org.slug}/analytics/ask/save", data={**fields, "dashboard_id": dashboard_id}
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    board = client.get(org.url(f"/dashboards/{dashboard_id}"), headers=org.headers).get_json()
    return board["widgets"][-1]


def test_save_as_widget_keeps_the_reading_shown(client, acme, work):
    """The Save form carries the (edited) reading: its filter, and over time its
    interval, range preset and split; a date range a widget cannot keep is not offered."""
    board = client.post(acme.url("/dashboards"), json={"name": "Team"}, headers=acme.headers)
    board_id = board.get_json()["id"]
    html = redraw(client, acme, metric="open", dimension="assignee", filter="kind = bug")
    widget = _save(client, acme, html.get_data(as_text=True), board_id)
    assert (widget["metric"], widget["dimension"], widget["filter"]) == (
        "open",
        "assignee",
        "kind = bug",
    )
    html = redraw(client, acme, dimension="project", priority="urgent", filter="isOverdue()")
    widget = _save(client, acme, html.get_data(as_text=True), board_id)
    assert "isOverdue()" in widget["filter"] and "priority = urgent" in widget["filter"]
    html = redraw(
        client,
        acme,
        metric="done",
        dimension="completed",
        interval="month",
        range="this_quarter",
        split="project",
        filter='project = "Mobile"',
    )
    widget = _save(client, acme, html.get_data(as_text=True), board_id)
    assert (widget["dimension"], widget["interval"], widget["range"], widget["split"]) == (
        "completed",
        "month",
        "this_quarter",
        "project",
    )
    assert widget["filter"] == 'project = "Mobile"' or widget["filter"] == '(project = "Mobile")'
    for dates in ({"range": "last_30_days"}, {"from": "2026-01-01"}):
        html = redraw(client, acme, metric="open", dimension="assignee", **dates)
        assert "Save as widget" not in html.get_data(as_text=True)
        assert "saving is not offered for this chart" in html.get_data(as_text=True)
    html = redraw(client, acme, dimension="created", **{"from": "2026-01-01"}).get_data(
        as_text=True
    )
    assert "Save as widget" not in html


def test_a_split_reading_is_drawn_split(client, acme, work):
    """ "completed per week by project" is drawn as a stacked series per project, asked
    or redrawn, not as one total line."""

    def traces(html):
        figure = re.search(
            r'<script type="application/json" id="fig-ask-[^"]+">(.*?)</script>', html
        )
        return json.loads(figure.group(1))["data"]

    asked = traces(ask_box(client, acme, "completed per week by project"))
    assert sorted(t["name"] for t in asked) == ["Mobile", "Web App"]
    assert all(t.get("stackgroup") == "one" and sum(t["y"]) == 1 for t in asked)
    html = redraw(
        client, acme, metric="done", dimension="completed", interval="week", split="kind"
    ).get_data(as_text=True)
    assert sorted((t["name"], sum(t["y"])) for t in traces(html)) == [("Bug", 1), ("Task", 1)]
    html = redraw(client, acme, metric="done", dimension="completed").get_data(as_text=True)
    assert len(traces(html)) == 1  # no split: the one line of totals
