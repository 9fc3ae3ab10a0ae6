"""Limits on asking and on MCP (docs/security.md#limits): rate limits per member and
per org, a bound on the asks in flight per org, credits reserved before the model call
so concurrent asks never spend past the pool, bounded token counts, MCP batch caps."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests
from sqlalchemy import func, select

from tests.agents.conftest import configure_model, make_project
from tests.conftest import LiveServer, add_person, login
from tests.factories import rate_limited_app
from workspace.agents import ask, credits
from workspace.agents.models import AiRun
from workspace.extensions import db

MCP = "/api/v1/agent/mcp"
IN_FLIGHT = "Too many questions are being answered for this organization right now"


def ask_over_http(live_server, org, text="open bugs by assignee", token=None):
    return requests.post(
        live_server.url + org.url("/analytics/ask"),
        json={"text": text},
        headers={"Authorization": f"Bearer {token or org.token}"},
        timeout=20,
    )


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def runs(app, org_id) -> list[AiRun]:
    with app.app_context():
        rows = list(db.session.scalars(select(AiRun).where(AiRun.org_id == org_id)))
        for row in rows:
            db.session.expunge(row)
        return rows


# -- rate limits ------------------------------------------------------------------------


def test_asks_are_rate_limited_per_member_and_per_org(app, acme):
    from workspace.extensions import limiter

    bob = add_person(app, acme.org_id, "bob@acme.test")
    # No embedded worker of its own: it would outlive the test and take later tests'
    # ask jobs with this app's settings.
    limited = rate_limited_app(
        app,
        ASK_RATE_PER_MEMBER="3 per minute",
        ASK_RATE_PER_ORG="5 per minute",
        JOBS_EMBEDDED_WORKER=False,
    )
    try:
        client = limited.test_client()

        def asked(who):
            return client.post(
                who.url("/analytics/ask"), json={"text": "open bugs"}, headers=who.headers
            )

        # The owner may ask 3 times a minute (offline interpreter: no model set up).
        assert [asked(acme).status_code for _ in range(4)] == [200, 200, 200, 429]
        refused = asked(acme)
        assert refused.mimetype == "application/problem+json"
        assert refused.get_json()["detail"].startswith("You are asking too often")
        # Bob has his own 3, but the org as a whole only 5: his third is refused.
        assert [asked(bob).status_code for _ in range(3)] == [200, 200, 429]
        assert "This organization is asking too often" in asked(bob).get_json()["detail"]
        # The page's Ask box shows the message, with the 429.
        login(client, acme.owner_email)
        page = client.post(
            f"/o/{acme.slug}/analytics/ask", data={"text": "open bugs"}, headers={"HX-Request": "1"}
        )
        assert page.status_code == 429
        assert "You are asking too often" in page.get_data(as_text=True)
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited.app_context():
            db.engine.dispose()
    assert len(runs(app, acme.org_id)) == 5  # refused asks record nothing


# -- asks in flight ---------------------------------------------------------------------


def test_asks_in_flight_per_org_are_bounded(
    live_server, client, app, acme, fake_model, monkeypatch
):
    monkeypatch.setitem(app.config, "ASK_MAX_IN_FLIGHT_PER_ORG", 1)
    make_project(client, acme)
    configure_model(client, acme, fake_model)
    bob = add_person(app, acme.org_id, "bob@acme.test")
    fake_model.behaviour.delay = 1.0
    slow: dict[str, requests.Response] = {}
    first = threading.Thread(target=lambda: slow.setdefault("r", ask_over_http(live_server, acme)))
    first.start()
    try:
        wait_for(lambda: len(fake_model.requests) == 1)  # the first call is under way
        second = ask_over_http(live_server, acme, token=bob.token)
        assert second.status_code == 429
        assert second.headers["Content-Type"].startswith("application/problem+json")
        assert second.json()["detail"].startswith(IN_FLIGHT)
    finally:
        first.join()
    assert slow["r"].status_code == 200 and slow["r"].json()["outcome"] == "ok"
    assert len(fake_model.requests) == 1  # the refused ask never reached the model
    # The slot is free again once the first answer is in.
    fake_model.behaviour.delay = 0.0
    assert ask_over_http(live_server, acme).status_code == 200
    # A reservation left by a request that died long ago holds no slot and no credits.
    with app.app_context():
        db.session.add(
            AiRun(
                org_id=acme.org_id,
                prompt="died",
                outcome=credits.RUNNING,
                metric="count",
                dimension="status",
                title="t",
                credits_charged=400,
                created_at=datetime.now(UTC) - timedelta(hours=1),
            )
        )
        db.session.commit()
    assert ask_over_http(live_server, acme).status_code == 200
    used = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()["used"]
    # Three answered asks at their cost; the dead reservation is not counted.
    assert used == 3 * credits.cost(900 + 150)


# -- credits reserved before the call ---------------------------------------------------


def test_concurrent_asks_never_spend_past_the_pool(
    live_server, client, app, acme, fake_model, monkeypatch
):
    """One seat: 500 credits. Eight asks at once, each reported at 100 credits' worth
    of tokens: without a reservation under a lock they all see credits left."""
    monkeypatch.setitem(app.config, "ASK_MAX_IN_FLIGHT_PER_ORG", 50)
    make_project(client, acme)
    configure_model(client, acme, fake_model)
    fake_model.behaviour.usage = {"prompt_tokens": 98_000, "completion_tokens": 1_000}
    fake_model.behaviour.delay = 0.3
    assert credits.cost(99_000) == 100
    answers: list[requests.Response] = []
    start = threading.Barrier(8)

    def one() -> None:
        start.wait()
        answers.append(ask_over_http(live_server, acme))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [200] * 8
    charged = [r.credits_charged for r in runs(app, acme.org_id)]
    assert len(charged) == 8 and sum(charged) == 500, charged
    assert all(r.outcome != credits.RUNNING for r in runs(app, acme.org_id))
    usage = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    assert usage["used"] == 500 and usage["remaining"] == 0
    # The pool is used up: the next ask does not call the model.
    calls = len(fake_model.requests)
    assert ask_over_http(live_server, acme).json()["outcome"] == "credits_exhausted"
    assert len(fake_model.requests) == calls


def test_asks_that_wait_do_not_starve_the_connection_pool(client, app, acme, fake_model):
    """Eight asks at once on a pool of ten connections. Each waiting request answers
    its own job inline; had it kept its connection while the job took two more (its
    unit of work and its progress reports), the pool ran dry and every ask hung until
    the pool's timeout (seen in CI as 8 asks, 0 answers)."""
    from werkzeug.serving import make_server

    make_project(client, acme)
    configure_model(client, acme, fake_model)
    fake_model.behaviour.delay = 0.3
    tight = rate_limited_app(
        app,
        RATELIMIT_ENABLED=False,
        JOBS_EMBEDDED_WORKER=False,
        ASK_MAX_IN_FLIGHT_PER_ORG=50,
        SQLALCHEMY_ENGINE_OPTIONS={"pool_size": 1, "max_overflow": 9, "pool_timeout": 5},
    )
    server = make_server("127.0.0.1", 0, tight, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served = LiveServer(url=f"http://127.0.0.1:{server.server_port}", app=tight)
    answers: list[int] = []
    start = threading.Barrier(8)

    def one() -> None:
        start.wait()
        answers.append(ask_over_http(served, acme).status_code)

    try:
        threads = [threading.Thread(target=one) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.shutdown()
        with tight.app_context():
            db.engine.dispose()
    assert answers == [200] * 8


# -- numbers from the provider ----------------------------------------------------------


@pytest.mark.parametrize("reported", [2**31, 10**30])
def test_huge_token_counts_are_bounded_before_they_are_stored(
    client, app, acme, fake_model, reported
):
    make_project(client, acme)
    configure_model(client, acme, fake_model)
    fake_model.behaviour.usage = {"prompt_tokens": reported, "completion_tokens": reported}
    resp = client.post(acme.url("/analytics/ask"), json={"text": "open bugs"}, headers=acme.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    run = next(r for r in runs(app, acme.org_id) if str(r.id) == resp.get_json()["ai_run_id"])
    assert run.prompt_tokens == run.completion_tokens == ask.MAX_REPORTED_TOKENS == 10_000_000
    assert run.credits_charged == 500  # the whole pool, never more
    with app.app_context():
        assert db.session.scalar(select(func.sum(AiRun.credits_charged))) == 500


# -- MCP batches ------------------------------------------------------------------------


def _agent(client, acme) -> dict[str, str]:
    agent = client.post(acme.url("/agents"), json={"name": "Bot"}, headers=acme.headers).get_json()
    return {"Authorization": f"Bearer {agent['token']}"}


def test_mcp_batch_is_capped_in_count(client, live_server, acme):
    auth = _agent(client, acme)
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(21)]
    resp = requests.post(live_server.url + MCP, json=batch, headers=auth, timeout=10)
    assert resp.status_code == 400
    err = resp.json()["error"]
    assert err["code"] == -32600 and "at most 20 messages" in err["message"]
    ok = requests.post(live_server.url + MCP, json=batch[:20], headers=auth, timeout=10)
    assert ok.status_code == 200 and len(ok.json()) == 20


def test_mcp_answers_are_capped_in_size(client, live_server, app, acme, monkeypatch):
    auth = _agent(client, acme)
    url = live_server.url + MCP
    listed = requests.post(
        url, json={"jsonrpc": "2.0", "id": 0, "method": "tools/list"}, headers=auth, timeout=10
    )
    one = len(listed.content)
    # Room for two tool lists and a bit: the third does not fit, the rest are not run.
    monkeypatch.setitem(app.config, "MCP_MAX_RESPONSE_BYTES", 2 * one + 100)
    batch = [{"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(6)]
    batch.insert(4, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    resp = requests.post(url, json=batch, headers=auth, timeout=10)
    assert resp.status_code == 200
    answers = resp.json()
    assert [a["id"] for a in answers] == list(range(6))
    assert all("result" in a for a in answers[:2])
    assert (
        answers[2]["error"]["code"] == -32000 and "does not fit" in answers[2]["error"]["message"]
    )
    assert all(a["error"]["message"].startswith("Not run") for a in answers[3:])
    assert len(resp.content) <= 2 * one + 100 + 3 * 400  # the data stops at the cap
    # A single answer larger than the cap is an error too.
    monkeypatch.setitem(app.config, "MCP_MAX_RESPONSE_BYTES", one // 2)
    single = requests.post(
        url, json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"}, headers=auth, timeout=10
    )
    assert single.status_code == 200
    assert single.json()["id"] == 7 and single.json()["error"]["code"] == -32000
