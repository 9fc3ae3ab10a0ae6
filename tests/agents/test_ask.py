"""Ask-a-chart against a fake OpenAI-compatible model on loopback (docs/ai.md)."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import select

from tests.agents.conftest import API_KEY, GOOD, configure_model, make_project, make_task
from tests.conftest import add_person
from workspace.agents.models import AiRun, AiSettings
from workspace.extensions import db
from workspace.security.crypto import unseal

DEFAULT_TITLE = "Work items by status"


@pytest.fixture
def work(client, app, acme):
    """A project with bugs and tasks in several states, held by two people."""
    project = make_project(client, acme)
    states = {
        s["name"]: s["id"]
        for s in client.get(
            acme.url(f"/projects/{project['id']}/states"), headers=acme.headers
        ).get_json()
    }
    ann = add_person(app, acme.org_id, "ann@acme.test")
    other = make_project(client, acme, "Mobile", "MOB")
    plan = [
        ("bug", "Todo", ann.owner_id, project),
        ("bug", "Todo", ann.owner_id, project),
        ("bug", "In Progress", acme.owner_id, project),
        ("bug", "Done", acme.owner_id, project),
        ("task", "Todo", acme.owner_id, other),
        ("task", "Done", None, other),
        ("feature", "Backlog", ann.owner_id, project),
    ]
    for kind, state, assignee, proj in plan:
        proj_states = (
            states
            if proj is project
            else {
                s["name"]: s["id"]
                for s in client.get(
                    acme.url(f"/projects/{proj['id']}/states"), headers=acme.headers
                ).get_json()
            }
        )
        make_task(
            client,
            acme,
            proj["id"],
            kind=kind,
            state_id=proj_states[state],
            assignee_id=str(assignee) if assignee else None,
        )
    return {"project": project, "other": other, "ann": ann}


def ask(client, org, text, **extra):
    return client.post(org.url("/analytics/ask"), json={"text": text, **extra}, headers=org.headers)


def custom(client, org, **params):
    resp = client.get(org.url("/analytics/custom"), query_string=params, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["points"]


def run_row(app, run_id) -> AiRun:
    with app.app_context():
        row = db.session.get(AiRun, uuid.UUID(run_id))
        db.session.expunge(row)
        return row


def test_good_answer_is_charted_with_the_custom_chart_points(client, app, acme, work, fake_model):
    configure_model(client, acme, fake_model)
    resp = ask(client, acme, "open bugs by assignee")
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert (body["title"], body["metric"], body["dimension"]) == (
        "Open bugs by assignee",
        "open",
        "assignee",
    )
    assert body["kind"] == "bug" and body["fallback"] is False and body["offline"] is False
    expected = custom(client, acme, metric="open", dimension="assignee", filter="kind = bug")
    assert body["points"] == expected
    assert [p["value"] for p in body["points"]] == [2, 1]  # Ann 2 open bugs, owner 1

    sent = fake_model.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == f"Bearer {API_KEY}"
    assert sent["json"]["model"] == "fake-chart"
    schema = sent["json"]["response_format"]["json_schema"]
    assert schema["strict"] is True
    assert schema["schema"]["properties"]["dimension"]["enum"] == [
        "status",
        "priority",
        "kind",
        "assignee",
        "project",
        "created",
        "completed",
    ]
    assert schema["schema"]["properties"]["range"]["enum"][-1] is None
    assert sent["json"]["messages"][-1]["content"] == "open bugs by assignee"

    run = run_row(app, body["ai_run_id"])
    assert run.outcome == "ok" and run.account_id == acme.owner_id
    assert run.actor_kind == "person" and run.model == "fake-chart"
    assert json.loads(run.raw_answer) == GOOD
    assert (run.prompt_tokens, run.completion_tokens) == (900, 150)
    assert run.credits_charged == 3  # 1 per call + 2 for 1,050 tokens
    credits = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    assert credits == {"used": 3, "limit": 1000, "remaining": 997, "percent": 0.3}


def test_tool_call_answer_and_plain_count_match_custom_chart(client, acme, work, fake_model):
    configure_model(client, acme, fake_model)
    fake_model.behaviour.content = None
    fake_model.behaviour.tool_arguments = json.dumps(
        {
            "metric": "done",
            "dimension": "project",
            "title": " Done  per project ",
            "kind": None,
            "priority": None,
        }
    )
    body = ask(client, acme, "how much is done per project").get_json()
    assert body["title"] == "Done per project" and body["fallback"] is False
    assert body["points"] == custom(client, acme, metric="done", dimension="project")
    assert sorted(p["value"] for p in body["points"]) == [1, 1]


UNUSABLE = {
    "invalid_json": ({"content": "Sure! Here is your chart: metric=open"}, "invalid_answer"),
    "metric_outside_enum": (
        {"content": json.dumps({**GOOD, "metric": "velocity"})},
        "invalid_answer",
    ),
    "dimension_outside_enum": (
        {"content": json.dumps({**GOOD, "dimension": "sprint"})},
        "invalid_answer",
    ),
    "kind_outside_enum": ({"content": json.dumps({**GOOD, "kind": "chore"})}, "invalid_answer"),
    "priority_outside_enum": (
        {"content": json.dumps({**GOOD, "priority": "asap"})},
        "invalid_answer",
    ),
    "json_array": ({"content": "[1, 2]"}, "invalid_answer"),
    "empty_content": ({"content": ""}, "invalid_answer"),
    "provider_error_500": ({"status": 500}, "provider_error"),
    "provider_refuses_401": ({"status": 401}, "provider_error"),
    "provider_rate_limit_429": ({"status": 429}, "provider_error"),
    "not_a_completion": ({"raw_body": "<html>gateway</html>"}, "provider_error"),
}


#: Words the built-in interpreter does not understand.
VAGUE = "what has the crew been up to lately"
NOTES = {
    "invalid_answer": "The model failed (its answer was not a chart spec",
    "provider_error": "The model failed (",
    "timeout": "The model did not answer in time (",
    "credits_exhausted": "This month's AI credits are used up",
}


def assert_interpreter_chart(client, org, body, outcome):
    """The model gave nothing usable: the built-in interpreter charts the same words
    ("open bugs by assignee"), and the note says why."""
    assert body["outcome"] == outcome and body["offline"] is True and body["fallback"] is False
    assert (body["title"], body["metric"], body["dimension"], body["kind"]) == (
        "Open bugs by assignee",
        "open",
        "assignee",
        "bug",
    )
    assert body["points"] == custom(
        client, org, metric="open", dimension="assignee", filter="kind = bug"
    )
    assert body["model_note"].startswith(NOTES[outcome])
    assert body["model_note"].endswith("; this chart comes from the built-in interpreter.")


@pytest.mark.parametrize("case", sorted(UNUSABLE))
def test_unusable_answer_gives_interpreter_or_default_chart(
    client, app, acme, work, fake_model, case
):
    configure_model(client, acme, fake_model)
    setup, outcome = UNUSABLE[case]
    for name, value in setup.items():
        setattr(fake_model.behaviour, name, value)
    resp = ask(client, acme, "open bugs by assignee")
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert_interpreter_chart(client, acme, body, outcome)
    assert len(fake_model.requests) == 1  # a 5xx, 401 or 429 is not retried
    run = run_row(app, body["ai_run_id"])
    assert run.outcome == outcome and run.offline and not run.fallback
    # An answered call is paid for even when unusable; no answer, no charge.
    assert run.credits_charged == (3 if outcome == "invalid_answer" else 0)
    assert API_KEY not in json.dumps(body) and API_KEY not in (run.raw_answer or "")

    # Words the interpreter does not understand either: the default chart.
    body = ask(client, acme, VAGUE).get_json()
    assert (body["title"], body["metric"], body["dimension"]) == (DEFAULT_TITLE, "count", "status")
    assert body["fallback"] is True and body["outcome"] == outcome
    assert body["points"] and body["points"] == custom(client, acme)
    assert body["model_note"].endswith(
        "did not understand the request either, so this is the default chart."
    )
    assert run_row(app, body["ai_run_id"]).fallback


def test_fenced_or_wrapped_answers_are_read(client, acme, work, fake_model):
    configure_model(client, acme, fake_model)
    for content in (
        "```json\n" + json.dumps(GOOD) + "\n```",
        "Sure, here it is:\n```\n" + json.dumps(GOOD) + "\n```\nAnything else?",
        "<think>They want bugs.</think>" + json.dumps(GOOD),
        "The spec is " + json.dumps(GOOD) + ".",
    ):
        fake_model.behaviour.content = content
        body = ask(client, acme, VAGUE).get_json()
        assert body["outcome"] == "ok" and body["title"] == "Open bugs by assignee", content


def test_timeout_gives_interpreter_chart(client, app, acme, work, fake_model, monkeypatch):
    configure_model(client, acme, fake_model)
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 0.5)
    fake_model.behaviour.delay = 1.5
    body = ask(client, acme, "open bugs by assignee").get_json()
    assert_interpreter_chart(client, acme, body, "timeout")
    assert "0.5 seconds" in body["model_note"]
    run = run_row(app, body["ai_run_id"])
    assert run.credits_charged == 0 and run.latency_ms >= 400


def test_credits_exhausted_stops_model_calls(client, app, acme, work, fake_model):
    configure_model(client, acme, fake_model)
    with app.app_context():
        db.session.add(
            AiRun(
                org_id=acme.org_id,
                prompt="earlier",
                outcome="ok",
                metric="count",
                dimension="status",
                title="t",
                credits_charged=1000,
            )
        )
        db.session.commit()
    credits = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    assert credits == {"used": 1000, "limit": 1000, "remaining": 0, "percent": 100.0}
    body = ask(client, acme, "open bugs by assignee").get_json()
    assert_interpreter_chart(client, acme, body, "credits_exhausted")
    body = ask(client, acme, VAGUE).get_json()
    assert body["title"] == DEFAULT_TITLE and body["outcome"] == "credits_exhausted"
    assert body["fallback"] is True and body["points"] == custom(client, acme)
    assert fake_model.requests == []  # the model was not called


def test_offline_interpreter_without_a_key(client, app, acme, work):
    body = ask(client, acme, "open bugs by assignee").get_json()
    assert (body["metric"], body["dimension"], body["kind"]) == ("open", "assignee", "bug")
    assert body["title"] == "Open bugs by assignee"
    assert body["offline"] is True and body["fallback"] is False and body["outcome"] == "offline"
    assert body["points"] == custom(
        client, acme, metric="open", dimension="assignee", filter="kind = bug"
    )
    run = run_row(app, body["ai_run_id"])
    assert run.offline and run.model is None and run.credits_charged == 0

    body = ask(client, acme, "How much is done per project?").get_json()
    assert (body["metric"], body["dimension"], body["kind"]) == ("done", "project", None)
    assert body["points"] == custom(client, acme, metric="done", dimension="project")

    body = ask(client, acme, "urgent work by status").get_json()
    assert body["priority"] == "urgent" and custom(client, acme, priority="urgent") == []
    # Nothing is urgent: the custom chart is empty, the answer names each state at 0.
    assert body["points"] and all(p["value"] == 0 for p in body["points"])

    body = ask(client, acme, "lorem ipsum dolor").get_json()
    assert body["title"] == DEFAULT_TITLE and body["outcome"] == "no_match"
    assert body["offline"] is True and body["fallback"] is True
    assert body["points"] == custom(client, acme)


def test_default_chart_is_never_empty(client, acme):
    make_project(client, acme)  # states, but no task at all
    body = ask(client, acme, "lorem ipsum").get_json()
    assert body["title"] == DEFAULT_TITLE
    assert {p["key"] for p in body["points"]} >= {"Backlog", "Todo", "Done"}
    assert all(p["value"] == 0 for p in body["points"])


def test_an_answer_over_nothing_names_every_value_at_zero(client, acme):
    """Never empty, whatever the spec: a chart over an empty org still lists what it
    would count (the workflow's states, every priority, every project...)."""
    workflow = {"Backlog", "Todo", "In Progress", "In Review", "Done", "Cancelled"}
    body = ask(client, acme, "lorem ipsum").get_json()
    assert {p["key"] for p in body["points"]} == workflow
    # By project with no project at all: nothing to name, so the default chart.
    body = ask(client, acme, "how much is done per project").get_json()
    assert (body["title"], body["fallback"]) == (DEFAULT_TITLE, True)
    assert {p["key"] for p in body["points"]} == workflow
    make_project(client, acme)
    for text, dimension, keys in (
        ("open bugs by assignee", "assignee", {"unassigned"}),
        ("urgent work by priority", "priority", {"urgent", "high", "medium", "low", "none"}),
        ("work by kind", "kind", {"task", "bug", "feature", "epic"}),
        ("how much is done per project", "project", {"Web App"}),
    ):
        body = ask(client, acme, text).get_json()
        assert body["dimension"] == dimension, text
        assert {p["key"] for p in body["points"]} == keys, text
        assert all(p["value"] == 0 for p in body["points"]), text


def test_nul_in_a_model_answer_is_kept_printably(client, app, acme, work, fake_model):
    """PostgreSQL text cannot hold NUL: the run keeps the answer with a replacement
    character, and the chart is still drawn."""
    configure_model(client, acme, fake_model)
    fake_model.behaviour.content = json.dumps({**GOOD, "title": "Open\u0000bugs"})
    body = ask(client, acme, "open bugs by assignee").get_json()
    assert body["outcome"] == "ok" and "\x00" not in body["title"]
    run = run_row(app, body["ai_run_id"])
    assert "\x00" not in (run.raw_answer or "") and "\x00" not in run.title
    fake_model.behaviour.content = "not json \u0000 at all"
    body = ask(client, acme, VAGUE).get_json()
    assert body["fallback"] is True and body["points"] == custom(client, acme)
    assert "\x00" not in (run_row(app, body["ai_run_id"]).raw_answer or "")


def test_an_answer_split_over_time_carries_its_series(client, acme, work):
    """Read as "by project" over time, the answer charts a series per project: the
    answer (the API's, and the ask job's, which the page draws) had dropped them, so
    the chart showed one area for all and its table one column."""
    body = ask(client, acme, "tasks created per week by project").get_json()
    assert body["understood"].get("split") == "project", body["understood"]
    series = body["series"]
    names = {work["project"]["name"], work["other"]["name"]}
    assert series and {s["key"] for s in series} <= names
    assert all(len(s["values"]) == len(body["points"]) for s in series)
    # Each bucket's total is its series' sum: the split divides the chart, adds nothing.
    for i, point in enumerate(body["points"]):
        assert point["value"] == sum(s["values"][i] for s in series)
    plain = ask(client, acme, "tasks created per week").get_json()
    assert plain["series"] is None


def test_request_length_and_scope(client, acme, globex, work):
    resp = ask(client, acme, "x" * 501)
    assert resp.status_code == 400
    assert "500" in json.dumps(resp.get_json())
    assert ask(client, acme, "   ").status_code == 400
    assert ask(client, acme, "x" * 500).status_code == 200
    # A project of another org is a 404; another org's ask URL is a 404.
    globex_project = make_project(client, globex, "G", "G")
    assert ask(client, acme, "bugs", project_id=globex_project["id"]).status_code == 404
    assert ask(client, globex, "bugs").status_code == 200
    resp = client.post(acme.url("/analytics/ask"), json={"text": "bugs"}, headers=globex.headers)
    assert resp.status_code == 404
    # Scoped to one project, the points are that project's only.
    body = ask(client, acme, "work by kind", project_id=work["other"]["id"]).get_json()
    assert body["points"] == custom(client, acme, dimension="kind", project_id=work["other"]["id"])
    assert [p["key"] for p in body["points"]] == ["task"]


def test_settings_key_is_sealed_write_only_and_blank_keeps(client, app, acme, fake_model):
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json() == {
        "configured": False,
        "base_url": None,
        "model": None,
        "has_api_key": False,
        "api_version": None,
        "azure": False,
        "learnt": [],
        "updated_at": None,
    }
    resp = client.put(
        acme.url("/ai-settings"),
        json={"base_url": fake_model.base_url, "model": "m1"},
        headers=acme.headers,
    )
    assert resp.status_code == 422 and resp.get_json()["errors"][0]["field"] == "api_key"
    saved = configure_model(client, acme, fake_model)
    assert saved["has_api_key"] is True and API_KEY not in json.dumps(saved)
    resp = client.put(
        acme.url("/ai-settings"),
        json={"base_url": fake_model.base_url + "/", "model": "m2", "api_key": ""},
        headers=acme.headers,
    )
    body = resp.get_json()
    assert body["model"] == "m2" and body["base_url"] == fake_model.base_url
    assert API_KEY not in client.get(acme.url("/ai-settings"), headers=acme.headers).get_data(
        as_text=True
    )
    with app.app_context():
        row = db.session.scalar(select(AiSettings).where(AiSettings.org_id == acme.org_id))
        assert API_KEY not in row.api_key_sealed
        assert unseal(row.api_key_sealed, row.id) == API_KEY
    for url in ("ftp://models.example", "http://[::1/v1", "https://models.example:99999/v1"):
        bad = client.put(
            acme.url("/ai-settings"), json={"base_url": url, "model": "m"}, headers=acme.headers
        )
        assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "base_url"
    # A new host does not inherit the key given for the old one.
    moved = client.put(
        acme.url("/ai-settings"),
        json={"base_url": "https://elsewhere.example/v1", "model": "m2"},
        headers=acme.headers,
    )
    assert moved.status_code == 422 and moved.get_json()["errors"][0]["field"] == "api_key"
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["base_url"] == (
        fake_model.base_url
    )


def test_settings_are_for_admins(client, app, acme, fake_model):
    member = add_person(app, acme.org_id, "bob@acme.test")
    assert client.get(acme.url("/ai-settings"), headers=member.headers).status_code == 403
    resp = client.put(
        acme.url("/ai-settings"),
        json={"base_url": "https://api.example.com/v1", "model": "m", "api_key": "k"},
        headers=member.headers,
    )
    assert resp.status_code == 403
    # Removing the model and testing (saved or typed values) are the admins' too.
    configure_model(client, acme, fake_model)
    assert client.delete(acme.url("/ai-settings"), headers=member.headers).status_code == 403
    for body in (None, {"base_url": fake_model.base_url, "model": "m", "api_key": "k"}):
        resp = client.post(acme.url("/ai-settings/test"), json=body, headers=member.headers)
        assert resp.status_code == 403
    assert fake_model.requests == []
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["configured"]
    # Any member may ask and read the credits.
    assert ask(client, member, "bugs by status").status_code == 200
    assert client.get(acme.url("/analytics/credits"), headers=member.headers).status_code == 200


def test_test_button_reports_success_and_provider_error(client, acme, fake_model):
    resp = client.post(acme.url("/ai-settings/test"), headers=acme.headers)
    assert resp.get_json()["ok"] is False and "save" in resp.get_json()["message"]
    configure_model(client, acme, fake_model)
    result = client.post(acme.url("/ai-settings/test"), headers=acme.headers).get_json()
    assert result["ok"] is True and "fake-chart" in result["message"]
    assert fake_model.requests[-1]["json"]["max_tokens"] == 5
    fake_model.behaviour.status = 500
    result = client.post(acme.url("/ai-settings/test"), headers=acme.headers).get_json()
    assert result["ok"] is False
    assert "HTTP 500" in result["message"] and "overloaded" in result["message"]
    # The test costs nothing.
    credits = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    assert credits["used"] == 0


def test_outbound_guard_refuses_loopback_unless_allowed(
    client, app, acme, work, fake_model, monkeypatch
):
    configure_model(client, acme, fake_model)
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", [])
    result = client.post(acme.url("/ai-settings/test"), headers=acme.headers).get_json()
    assert result["ok"] is False and "private" in result["message"]
    body = ask(client, acme, "open bugs by assignee").get_json()
    assert_interpreter_chart(client, acme, body, "provider_error")
    assert "private" in body["model_note"]
    assert fake_model.requests == []
