"""Ask says what it understood (docs/ai.md#the-reading): the reading's points are the
custom chart's for the same query, its words and the words not used are shown."""

from __future__ import annotations

import json

import pytest

from tests.agents.conftest import configure_model, make_project, make_task, states_by_name
from tests.conftest import login

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


def ask(client, org, text):
    return client.post(org.url("/analytics/ask"), json={"text": text}, headers=org.headers)


def custom(client, org, **params):
    resp = client.get(org.url("/analytics/custom"), query_string=params, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["points"]


def pairs(points):
    return [(p["key"], p["value"]) for p in points]


def test_time_words_give_the_series_not_an_all_time_bar(client, acme, work):
    body = ask(client, acme, "tasks completed per week this quarter").get_json()
    assert body["outcome"] == "offline" and body["fallback"] is False
    assert body["understood"] == {
        "metric": "done",
        "dimension": "completed",
        "interval": "week",
        "range": "this_quarter",
    }
    assert body["reading"] == "Done tasks, per week, completed this quarter"
    series = custom(client, acme, **body["understood"])
    assert pairs(body["points"]) == pairs(series) and len(series) > 1
    assert sum(p["value"] for p in body["points"]) == 2  # the two Done tasks
    assert "dimension=completed" in body["custom_href"] and body["unused"] == []


def test_narrowing_words_are_kept_as_pql(client, acme, work):
    body = ask(client, acme, "urgent tasks overdue per project").get_json()
    assert body["understood"]["filter"] == "isOverdue()"
    assert body["understood"]["priority"] == "urgent"
    assert body["reading"] == "Tasks, by project, where priority = urgent and isOverdue()"

    body = ask(client, acme, "unassigned tasks in Mobile by status").get_json()
    assert body["understood"]["filter"] == 'project = "Mobile" AND hasNoAssignee()'
    by_status = custom(client, acme, dimension="status", filter=body["understood"]["filter"])
    assert pairs(body["points"]) == pairs(by_status)
    assert sum(p["value"] for p in body["points"]) == 1  # Mobile's unassigned Done task

    body = ask(client, acme, "open bugs by assignee in Narnia").get_json()
    assert body["unused"] == ["narnia"] and body["understood"]["filter"] == "kind = bug"


def test_a_range_narrows_a_chart_by_one_of_the_five(client, acme, work):
    this = ask(client, acme, "done this quarter by project").get_json()
    assert this["reading"] == "Done tasks, by project, completed this quarter"
    assert pairs(this["points"]) == pairs(custom(client, acme, metric="done", dimension="project"))
    last = ask(client, acme, "done last quarter by project").get_json()
    assert all(p["value"] == 0 for p in last["points"])  # all were completed today


def test_the_model_reading_is_used_and_a_bad_filter_named(client, acme, work, fake_model):
    configure_model(client, acme, fake_model)
    fake_model.behaviour.content = json.dumps(
        {
            "metric": "done",
            "dimension": "completed",
            "title": "Bugs done per day",
            "kind": "bug",
            "priority": None,
            "interval": "day",
            "range": "last_7_days",
            "filter": "project = Narnia",
            "unused": ["velocity"],
        }
    )
    body = ask(client, acme, "bug velocity per day in narnia last week").get_json()
    assert body["outcome"] == "ok" and body["fallback"] is False
    assert body["understood"] == {
        "metric": "done",
        "dimension": "completed",
        "interval": "day",
        "range": "last_7_days",
        "filter": "kind = bug",
    }
    assert body["unused"] == ["velocity", "filter: project = Narnia"]
    assert pairs(body["points"]) == pairs(custom(client, acme, **body["understood"]))
    assert len(body["points"]) == 7 and sum(p["value"] for p in body["points"]) == 1
    sent = fake_model.requests[-1]["json"]["response_format"]["json_schema"]["schema"]
    assert set(sent["required"]) >= {"interval", "range", "filter", "unused"}


def test_the_ask_box_shows_the_reading_and_what_it_did_not_use(client, acme):
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    login(client, acme.owner_email)
    html = client.post(
        f"/o/{acme.slug}/analytics/ask",
        data={"text": "overdue bugs per week in Narnia"},
        headers=HX,
    ).get_data(as_text=True)
    assert "Read as:</strong> Tasks, per week, where kind = bug and isOverdue()." in html
    assert "Not used: &ldquo;narnia&rdquo;" in html
    assert "Change it in the Custom tab" in html and "dimension=created" in html
