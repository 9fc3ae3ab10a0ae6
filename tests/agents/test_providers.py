"""Ask-a-chart against each provider family (docs/ai.md#providers), over real HTTP.

The fake provider (tests/agents/provider_server.py) answers like an OpenAI reasoning
model, a json_object-only server, a server that fences its JSON, and Azure OpenAI.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from tests.agents import provider_server
from tests.agents.conftest import ask_on_page, make_project, make_task, states_by_name
from tests.agents.provider_server import KEY, ProviderServer
from tests.conftest import add_person, login
from workspace.agents.models import AiRun
from workspace.core.models import Event
from workspace.extensions import db

HX = {"HX-Request": "true"}
#: Words the built-in interpreter does not understand: a chart other than the default
#: then can only have come from the model.
VAGUE = "what has the crew been up to lately"


@pytest.fixture(scope="module")
def provider_module() -> Iterator[ProviderServer]:
    server = provider_server.start()
    yield server
    provider_server.stop(server)


@pytest.fixture
def provider(provider_module: ProviderServer, app, monkeypatch) -> ProviderServer:
    provider_module.reset()
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    return provider_module


@pytest.fixture
def work(client, acme):
    """Two projects; one done task in each, two open bugs in the first."""
    web = make_project(client, acme)
    mobile = make_project(client, acme, "Mobile", "MOB")
    for project, kind, state in (
        (web, "bug", "Todo"),
        (web, "bug", "In Progress"),
        (web, "task", "Done"),
        (mobile, "task", "Done"),
    ):
        states = states_by_name(client, acme, project["id"])
        make_task(client, acme, project["id"], kind=kind, state_id=states[state])
    return {"web": web, "mobile": mobile}


def configure(client, org, base_url: str, model: str = "gpt-4o", key: str = KEY, **extra):
    resp = client.put(
        org.url("/ai-settings"),
        json={"base_url": base_url, "model": model, "api_key": key, **extra},
        headers=org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def ask(client, org, text: str) -> dict:
    resp = client.post(org.url("/analytics/ask"), json={"text": text}, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def custom(client, org, **params) -> list:
    resp = client.get(org.url("/analytics/custom"), query_string=params, headers=org.headers)
    return resp.get_json()["points"]


def run_row(app, run_id: str) -> AiRun:
    with app.app_context():
        row = db.session.get(AiRun, uuid.UUID(run_id))
        db.session.expunge(row)
        return row


def assert_model_chart(client, org, body: dict) -> None:
    """The answer is the model's chart (done by project), not the interpreter's."""
    assert body["outcome"] == "ok" and body["offline"] is False and body["fallback"] is False
    assert (body["metric"], body["dimension"]) == ("done", "project")
    assert body["title"] == "Completed work per project" and body["model_note"] is None
    assert body["points"] == custom(client, org, metric="done", dimension="project")
    assert sorted(p["value"] for p in body["points"]) == [1, 1]


# -- OpenAI reasoning models -------------------------------------------------------------------


def test_reasoning_model_is_learnt_once_and_remembered(client, app, acme, work, provider):
    configure(client, acme, provider.url("/reasoning/v1"), model="o4-mini")
    body = ask(client, acme, VAGUE)
    assert_model_chart(client, acme, body)
    sent = [r["json"] for r in provider.requests]
    assert len(sent) == 3  # refused max_tokens, then temperature, then answered
    assert sent[0]["max_tokens"] == 300 and sent[0]["temperature"] == 0
    assert "max_tokens" not in sent[1] and sent[1]["temperature"] == 0
    assert "temperature" not in sent[2] and sent[2]["max_completion_tokens"] >= 1000
    assert sent[2]["response_format"]["type"] == "json_schema"
    run = run_row(app, body["ai_run_id"])
    assert "learnt for o4-mini" in run.raw_answer and KEY not in run.raw_answer
    assert run.credits_charged == 3  # one answered call: 1 + 2 for 1,432 tokens

    learnt = client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["learnt"]
    assert any("max_completion_tokens" in s for s in learnt)
    assert any("temperature" in s for s in learnt)

    provider.requests.clear()
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    assert len(provider.requests) == 1  # the right shape first
    assert "temperature" not in provider.requests[0]["json"]

    # Another model on the same endpoint starts with nothing learnt.
    configure(client, acme, provider.url("/reasoning/v1"), model="o3", key="")
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["learnt"] == []
    provider.requests.clear()
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    assert len(provider.requests) == 3


def test_retries_stop_within_the_deadline(client, app, acme, work, provider, monkeypatch):
    """No time left after the first refusal: no retry, and the interpreter answers."""
    configure(client, acme, provider.url("/reasoning/v1"), model="o4-mini")
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", 0.4)
    body = ask(client, acme, "open bugs by project")
    assert len(provider.requests) == 1
    assert body["outcome"] == "provider_error" and body["offline"] is True
    assert "max_tokens" in body["model_note"]


# -- json_object only, fenced answers ------------------------------------------------------


def test_json_object_only_server_gets_json_object(client, acme, work, provider):
    configure(client, acme, provider.url("/json-object/v1"), model="deepseek-chat")
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    formats = [r["json"]["response_format"]["type"] for r in provider.requests]
    assert formats == ["json_schema", "json_object"]
    assert "JSON" in provider.requests[-1]["json"]["messages"][0]["content"]
    provider.requests.clear()
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    assert [r["json"]["response_format"]["type"] for r in provider.requests] == ["json_object"]


def test_fenced_answer_is_used(client, acme, work, provider):
    configure(client, acme, provider.url("/fenced/v1"), model="llama3.1")
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    assert len(provider.requests) == 1


# -- Azure OpenAI -----------------------------------------------------------------------------


def test_azure_deployment_url_pasted_whole(client, acme, work, provider):
    pasted = provider.url("/openai/deployments/charts/chat/completions?api-version=2024-10-21")
    saved = configure(client, acme, pasted, model="gpt-4o")
    assert saved["base_url"] == provider.url("/openai/deployments/charts")
    assert (saved["api_version"], saved["azure"]) == ("2024-10-21", True)
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    sent = provider.requests[-1]
    assert sent["headers"]["Api-Key"] == KEY and "Authorization" not in sent["headers"]
    assert sent["args"] == {"api-version": "2024-10-21"}
    # The api-version may also come as its own field.
    saved = configure(
        client,
        acme,
        provider.url("/openai/deployments/charts"),
        key="",
        api_version="2025-01-01-preview",
    )
    assert saved["api_version"] == "2025-01-01-preview"
    assert_model_chart(client, acme, ask(client, acme, VAGUE))
    assert provider.requests[-1]["args"] == {"api-version": "2025-01-01-preview"}


@pytest.mark.parametrize(
    ("base_url", "field", "says"),
    [
        ("https://res.openai.azure.com/openai/deployments/gpt4o", "api_version", "2024-10-21"),
        ("https://res.openai.azure.com", "base_url", "/openai/deployments/"),
        ("https://api.example.com/v1?foo=bar", "base_url", "query"),
        ("https://api.example.com/v1#frag", "base_url", "fragment"),
        ("http://[::1/v1", "base_url", "https://"),
        ("https://api.example.com:99999/v1", "base_url", "https://"),
        (
            "https://res.openai.azure.com/openai/deployments/x?api-version=bad%20v",
            "api_version",
            "",
        ),
    ],
)
def test_azure_settings_say_what_is_missing(client, acme, base_url, field, says):
    resp = client.put(
        acme.url("/ai-settings"),
        json={"base_url": base_url, "model": "gpt-4o", "api_key": "k"},
        headers=acme.headers,
    )
    assert resp.status_code == 422
    error = resp.get_json()["errors"][0]
    assert error["field"] == field and says in error["message"]


def test_real_azure_host_is_azure_shaped(client, acme):
    saved = configure(
        client,
        acme,
        "https://res.openai.azure.com/openai/deployments/gpt4o/",
        api_version="2024-10-21",
    )
    assert saved["azure"] is True
    assert saved["base_url"] == "https://res.openai.azure.com/openai/deployments/gpt4o"
    # Elsewhere an api-version means nothing and is not kept.
    saved = configure(client, acme, "https://api.openai.com/v1", api_version="2024-10-21")
    assert (saved["azure"], saved["api_version"]) == (False, None)


# -- base URLs as people paste them ----------------------------------------------------------


@pytest.mark.parametrize(
    "suffix", ["/v1/chat/completions", "/v1/", "/v1/v1", "/v1/v1/chat/completions/", "/v1"]
)
def test_pasted_base_url_is_normalized(client, acme, work, provider, suffix):
    saved = configure(client, acme, provider.url("/json-object" + suffix), model="m")
    assert saved["base_url"] == provider.url("/json-object/v1")
    assert_model_chart(client, acme, ask(client, acme, VAGUE))


# -- when the model fails ---------------------------------------------------------------------


def test_failure_gives_the_interpreters_chart_with_a_note(client, app, acme, work, provider):
    configure(client, acme, provider.url("/fenced/v1"), key="sk-wrong-key-0000")
    body = ask(client, acme, "open bugs by project")
    assert body["outcome"] == "provider_error" and body["fallback"] is False
    assert body["offline"] is True
    assert (body["metric"], body["dimension"], body["kind"]) == ("open", "project", "bug")
    assert body["points"] == custom(
        client, acme, metric="open", dimension="project", filter="kind = bug"
    )
    note = body["model_note"]
    assert note.startswith("The model failed (HTTP 401: Incorrect API key provided")
    assert note.endswith("this chart comes from the built-in interpreter.")
    assert "sk-wron" not in note and "sk-wrong-key-0000" not in json.dumps(body)
    run = run_row(app, body["ai_run_id"])
    assert run.outcome == "provider_error" and run.credits_charged == 0
    assert "sk-wron" not in run.raw_answer

    body = ask(client, acme, VAGUE)
    assert body["fallback"] is True and body["title"] == "Work items by status"
    assert "did not understand the request either" in body["model_note"]


def test_ask_page_shows_the_note_and_links_admins_to_settings(
    client, app, acme, work, provider, embedded_worker
):
    configure(client, acme, provider.url("/fenced/v1"), key="sk-wrong-key-0000")
    settings_link = f'href="/o/{acme.slug}/settings/ai"'
    login(client, acme.owner_email)
    html = ask_on_page(client, acme.slug, "open bugs by project")
    assert "The model failed (HTTP 401" in html and "built-in interpreter" in html
    assert settings_link in html and "Open bugs by project" in html
    bob = add_person(app, acme.org_id, "bob@acme.test")
    login(client, bob.owner_email)
    html = ask_on_page(client, acme.slug, "open bugs by project")
    assert "The model failed (HTTP 401" in html and settings_link not in html


# -- removing the model, testing before saving --------------------------------------------


def test_removing_the_model_returns_to_offline(client, app, acme, work, provider):
    configure(client, acme, provider.url("/fenced/v1"))
    resp = client.delete(acme.url("/ai-settings"), headers=acme.headers)
    assert resp.status_code == 204
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["configured"] is (
        False
    )
    body = ask(client, acme, "open bugs by project")
    assert body["outcome"] == "offline" and provider.requests == []
    assert client.delete(acme.url("/ai-settings"), headers=acme.headers).status_code == 204
    with app.app_context():
        kinds = db.session.scalars(
            select(Event.kind).where(Event.org_id == acme.org_id, Event.kind.like("ai.%"))
        ).all()
    assert sorted(kinds) == ["ai.settings_removed", "ai.settings_saved"]

    configure(client, acme, provider.url("/fenced/v1"))
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings/ai").get_data(as_text=True)
    assert "data-confirm=" in page and "Remove model" in page
    assert client.post(f"/o/{acme.slug}/settings/ai/remove").status_code == 302
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["configured"] is (
        False
    )


def test_test_before_save(client, app, acme, provider):
    values = {"base_url": provider.url("/reasoning/v1"), "model": "o4-mini", "api_key": KEY}
    resp = client.post(acme.url("/ai-settings/test"), json=values, headers=acme.headers)
    result = resp.get_json()
    assert result["ok"] is True and "max_completion_tokens" in result["message"]
    assert client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["configured"] is (
        False
    )
    wrong = client.post(
        acme.url("/ai-settings/test"), json={**values, "api_key": "sk-nope-1"}, headers=acme.headers
    ).get_json()
    assert wrong["ok"] is False and "HTTP 401" in wrong["message"]
    bad = client.post(
        acme.url("/ai-settings/test"), json={**values, "base_url": "ftp://x"}, headers=acme.headers
    )
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "base_url"

    # Saved: a blank key tests with the stored one, on the same host only.
    configure(client, acme, provider.url("/reasoning/v1"), model="o4-mini")
    provider.requests.clear()
    blank = {**values, "api_key": ""}
    result = client.post(acme.url("/ai-settings/test"), json=blank, headers=acme.headers)
    assert result.get_json()["ok"] is True
    assert provider.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"
    # What the test learnt about the saved model is kept for the asks.
    learnt = client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()["learnt"]
    assert any("max_completion_tokens" in s for s in learnt)
    moved = client.post(
        acme.url("/ai-settings/test"),
        json={**blank, "base_url": "https://elsewhere.example/v1"},
        headers=acme.headers,
    )
    assert moved.status_code == 422 and moved.get_json()["errors"][0]["field"] == "api_key"

    # The page's Test button sends the typed values and saves nothing.
    login(client, acme.owner_email)
    typed = {"base_url": provider.url("/fenced/v1"), "model": "llama3.1", "api_key": KEY}
    html = client.post(f"/o/{acme.slug}/settings/ai/test", data=typed).get_data(as_text=True)
    assert "The model llama3.1 answered" in html and provider.url("/fenced/v1") in html
    saved = client.get(acme.url("/ai-settings"), headers=acme.headers).get_json()
    assert saved["model"] == "o4-mini"
    fragment = client.post(
        f"/o/{acme.slug}/settings/ai/test", data={**typed, "base_url": "nope"}, headers=HX
    ).get_data(as_text=True)
    assert "Model test failed" in fragment and "<html" not in fragment
