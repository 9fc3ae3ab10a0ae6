"""Ask-a-chart as a job (docs/jobs.md#ask-a-chart): the Ask box's pending state and
the chart that replaces it, the job's page without JavaScript, the job resource of the
JSON API beside its synchronous answer, the org's asks in flight and its credits held
across workers, a member removed before the job runs, one run per job however often it
is delivered. Against the fake model server on loopback."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from datetime import UTC, datetime

import requests
from sqlalchemy import select

from tests.agents.conftest import GOOD, ask_on_page, configure_model, make_project, make_task
from tests.conftest import add_person, login
from tests.jobs.conftest import wait_for
from workspace.agents import client as model_client
from workspace.agents import credits
from workspace.agents.models import AiRun
from workspace.auth.membership import deactivate_member
from workspace.core.models import OrgMember
from workspace.extensions import db
from workspace.jobs.models import Job
from workspace.jobs.worker import Worker

HX = {"HX-Request": "true"}
IN_FLIGHT = "Too many questions are being answered for this organization right now"


def _runs(app, org_id) -> list[AiRun]:
    with app.app_context():
        rows = list(db.session.scalars(select(AiRun).where(AiRun.org_id == org_id)))
        for row in rows:
            db.session.expunge(row)
        return rows


def _follow(client, location: str, headers, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(location, headers=headers).get_json()
        if job["state"] in ("done", "dead"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def _start(client, org, text="open bugs by assignee", **extra):
    return client.post(
        org.url("/analytics/ask/jobs"), json={"text": text, **extra}, headers=org.headers
    )


def _with_bugs(client, org) -> dict:
    project = make_project(client, org)
    make_task(client, org, project["id"], kind="bug")
    return project


# -- the page ---------------------------------------------------------------------------


def test_the_ask_box_shows_the_pending_state_then_the_chart(
    client, app, acme, fake_model, embedded_worker
):
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    dashboard = client.post(acme.url("/dashboards"), json={"name": "Bugs"}, headers=acme.headers)
    login(client, acme.owner_email)
    fake_model.behaviour.delay = 0.5
    pending = client.post(
        f"/o/{acme.slug}/analytics/ask", data={"text": "open bugs by assignee"}, headers=HX
    )
    html = pending.get_data(as_text=True)
    assert pending.status_code == 202 and "<html" not in html
    assert 'hx-trigger="every 1s"' in html and "ask fake-chart…" in html
    poll = re.search(r'hx-get="([^"]+)"', html).group(1)
    seen = set()
    deadline = time.monotonic() + 20
    while "ask-pending" in html:
        assert time.monotonic() < deadline
        seen.update(re.findall(r"(Waiting to ask|Asking) fake-chart…", html))
        time.sleep(0.05)
        html = client.get(poll, headers=HX).get_data(as_text=True)
    assert "Asking" in seen  # the worker said what it was doing while the model answered
    # The chart where the answer appears today, drawn and ready to save.
    assert "Open bugs by assignee" in html and "data-plotly" in html and "<html" not in html
    assert "Save as widget" in html and dashboard.get_json()["id"] in html
    # The model's reading in the controls, to correct without asking the model again.
    assert 'id="f-ask-dimension"' in html and '<option value="assignee" selected>' in html
    assert 'id="f-ask-filter" name="filter" value="kind = bug"' in html
    (run,) = _runs(app, acme.org_id)
    assert run.outcome == "ok" and run.credits_charged == 3 and run.account_id == acme.owner_id
    # Asked on a dashboard's page: that dashboard is offered first.
    other = client.post(acme.url("/dashboards"), json={"name": "Zzz"}, headers=acme.headers)
    fake_model.behaviour.delay = 0.0
    html = ask_on_page(
        client, acme.slug, "open bugs by assignee", dashboard_id=other.get_json()["id"]
    )
    assert f'<option value="{other.get_json()["id"]}" selected>' in html


def test_without_javascript_the_ask_leads_to_its_jobs_page(client, app, acme, fake_model):
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    login(client, acme.owner_email)
    resp = client.post(f"/o/{acme.slug}/analytics/ask", data={"text": "open bugs by assignee"})
    assert resp.status_code == 303
    job_page = resp.headers["Location"]
    assert re.fullmatch(rf"/o/{acme.slug}/jobs/[0-9a-f-]{{36}}", job_page)
    waiting = client.get(job_page).get_data(as_text=True)
    assert "Waiting for a worker" in waiting and 'http-equiv="refresh"' in waiting
    worker = Worker(app, threads=1, scheduler=False)
    worker.start()
    try:
        wait_for(app, uuid.UUID(job_page.rsplit("/", 1)[1]))
    finally:
        worker.stop()
    html = client.get(job_page).get_data(as_text=True)
    assert "Open bugs by assignee" in html and "<td>Unassigned</td>" in html
    assert 'http-equiv="refresh"' not in html and "Ask for another chart" in html
    # What was read, and a link to its controls on the Ask page (no model called there).
    assert "Read as:</strong> Open tasks, by assignee, where kind = bug." in html
    change = re.search(r'<a href="([^"]+)">Change what was read</a>', html).group(1)
    page = client.get(change.replace("&amp;", "&")).get_data(as_text=True)
    assert '<option value="assignee" selected>' in page and "<td>Unassigned</td>" in page
    assert len(fake_model.requests) == 1
    # The Ask box's poll address, opened without JavaScript, leads to the same page.
    poll = client.get(f"/o/{acme.slug}/analytics/ask/jobs/{job_page.rsplit('/', 1)[1]}")
    assert poll.status_code == 302 and poll.headers["Location"].endswith(job_page)


def test_a_refused_ask_shows_its_message_and_starts_nothing(client, app, acme, fake_model):
    configure_model(client, acme, fake_model)
    login(client, acme.owner_email)
    long = client.post(f"/o/{acme.slug}/analytics/ask", data={"text": "x" * 501}, headers=HX)
    assert long.status_code == 400 and "at most 500 characters" in long.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(Job.id)) is None


def test_the_poll_is_the_askers_alone(client, app, acme, globex, fake_model):
    configure_model(client, acme, fake_model)
    job_id = _start(client, acme).get_json()["id"]
    bob = add_person(app, acme.org_id, "bob@acme.test")
    login(client, bob.owner_email)
    assert client.get(f"/o/{acme.slug}/analytics/ask/jobs/{job_id}", headers=HX).status_code == 404
    login(client, acme.owner_email)
    assert client.get(f"/o/{acme.slug}/analytics/ask/jobs/{job_id}", headers=HX).status_code == 200


# -- the JSON API -----------------------------------------------------------------------


def test_the_job_resource_answers_what_the_synchronous_ask_answers(
    client, app, acme, fake_model, embedded_worker
):
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    started = _start(client, acme)
    assert started.status_code == 202, started.get_json()
    body = started.get_json()
    assert started.headers["Location"].endswith(f"/jobs/{body['id']}")
    assert (body["kind"], body["result"]) == ("ai.ask", None)
    job = _follow(client, started.headers["Location"], acme.headers)
    assert job["state"] == "done" and job["error"] is None and job["file_url"] is None
    assert job["progress"]["text"] == "Asking fake-chart…"
    answer = job["result"]
    # The run is the job's: one job, one run, whatever the deliveries.
    assert answer["ai_run_id"] == job["id"]
    waited = client.post(
        acme.url("/analytics/ask"), json={"text": "open bugs by assignee"}, headers=acme.headers
    ).get_json()
    assert {k: v for k, v in answer.items() if k != "ai_run_id"} == {
        k: v for k, v in waited.items() if k != "ai_run_id"
    }
    assert (answer["title"], answer["outcome"], answer["kind"]) == (GOOD["title"], "ok", "bug")
    used = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()["used"]
    assert used == 2 * credits.cost(900 + 150)
    # Another member of the org, and another org, never see it.
    bob = add_person(app, acme.org_id, "bob@acme.test")
    assert client.get(started.headers["Location"], headers=bob.headers).status_code == 404


def test_a_chart_over_time_is_drawn_by_the_worker_with_its_links(
    client, app, acme, fake_model, embedded_worker
):
    """A series over time links each point to its task list, built with url_for on
    the worker, which serves no request (the Ask box's answer was a RuntimeError)."""
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    over_time = {**GOOD, "metric": "count", "dimension": "completed", "interval": "week",
                 "title": "Bugs completed per week"}  # fmt: skip
    fake_model.behaviour.content = json.dumps(over_time)
    started = _start(client, acme, text="bugs completed per week")
    job = _follow(client, started.headers["Location"], acme.headers)
    assert job["state"] == "done", job["error"]
    assert job["result"]["title"] == "Bugs completed per week"
    assert job["result"]["outcome"] == "ok"


def test_without_a_model_the_job_answers_with_the_interpreter(client, app, acme, embedded_worker):
    _with_bugs(client, acme)
    started = _start(client, acme, text="bugs by kind")
    job = _follow(client, started.headers["Location"], acme.headers)
    assert job["state"] == "done" and job["progress"]["text"] == "Charting…"
    assert job["result"]["outcome"] == "offline" and job["result"]["title"] == "Work items by kind"
    # The synchronous ask makes no job: nothing to wait for.
    sync = client.post(acme.url("/analytics/ask"), json={"text": "bugs"}, headers=acme.headers)
    assert sync.status_code == 200
    with app.app_context():
        assert len(list(db.session.scalars(select(Job.id)))) == 1


def test_a_failed_ask_says_so_in_words_and_keeps_the_error_for_the_job(
    client, app, acme, fake_model, monkeypatch
):
    """Failure injection: every attempt raises. The asker reads that the chart could
    not be made and to try again, not a Python error class; the job keeps the error."""
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)

    def breaks(*args, **kwargs):
        raise RuntimeError("internal detail of the failure")

    monkeypatch.setattr(model_client, "chat", breaks)
    resp = client.post(acme.url("/analytics/ask"), json={"text": "open bugs"},
                       headers=acme.headers)  # fmt: skip
    assert resp.status_code == 503
    detail = resp.get_json()["detail"]
    assert detail.startswith("The chart could not be made.") and "try again" in detail
    assert "RuntimeError" not in detail and "internal detail" not in detail
    with app.app_context():
        (job,) = db.session.scalars(select(Job)).all()
        assert job.last_error == "RuntimeError: internal detail of the failure"
    # The job's resource and page, which the asker may open, say the same in words.
    error = client.get(acme.url(f"/jobs/{job.id}"), headers=acme.headers).get_json()["error"]
    assert error["status"] == 503 and "try again" in error["detail"]
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/jobs/{job.id}").get_data(as_text=True)
    assert "It could not be made." in page and "try again" in page
    for shown in (error["detail"], page):
        assert "RuntimeError" not in shown and "internal detail" not in shown


def test_the_job_resource_refuses_what_the_ask_refuses(client, app, acme, globex, fake_model):
    configure_model(client, acme, fake_model)
    assert _start(client, acme, text="x" * 501).status_code == 400
    assert _start(client, acme, text="   ").status_code == 400
    other = make_project(client, globex)
    assert _start(client, acme, project_id=other["id"]).status_code == 404
    with app.app_context():
        assert db.session.scalar(select(Job.id)) is None


def test_the_synchronous_ask_is_its_job_waited_for(client, app, acme, fake_model):
    """On the embedded default the waiting request runs the job itself; a job whose
    first attempt dies is run again and still writes one run, charged once."""
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    real_chat = model_client.chat
    calls = []

    def dies_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the worker died mid-call")
        return real_chat(*args, **kwargs)

    model_client.chat = dies_once
    try:
        resp = client.post(
            acme.url("/analytics/ask"), json={"text": "open bugs"}, headers=acme.headers
        )
    finally:
        model_client.chat = real_chat
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["outcome"] == "ok" and len(calls) == 2
    with app.app_context():
        job = db.session.get(Job, uuid.UUID(body["ai_run_id"]))
        assert (job.kind, job.state, job.attempts) == ("ai.ask", "done", 2)
    (run,) = _runs(app, acme.org_id)
    assert run.outcome == "ok" and run.credits_charged == credits.cost(900 + 150)


# -- bounds across workers --------------------------------------------------------------


def test_two_asks_racing_for_the_last_place_in_flight(
    live_server, client, app, acme, fake_model, monkeypatch
):
    monkeypatch.setitem(app.config, "ASK_MAX_IN_FLIGHT_PER_ORG", 1)
    configure_model(client, acme, fake_model)
    bob = add_person(app, acme.org_id, "bob@acme.test")
    gate = threading.Barrier(2)
    answers: list[requests.Response] = []

    def start(token: str) -> None:
        gate.wait()
        answers.append(
            requests.post(
                live_server.url + acme.url("/analytics/ask/jobs"),
                json={"text": "open bugs"},
                headers={"Authorization": f"Bearer {token}"},
                timeout=20,
            )
        )

    threads = [threading.Thread(target=start, args=(t,)) for t in (acme.token, bob.token)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status_code for a in answers) == [202, 429]
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.json()["detail"].startswith(IN_FLIGHT)
    # Queued counts as in flight (no worker yet): the synchronous ask is refused too.
    sync = client.post(acme.url("/analytics/ask"), json={"text": "x"}, headers=bob.headers)
    assert sync.status_code == 429 and sync.get_json()["detail"].startswith(IN_FLIGHT)
    with app.app_context():
        assert len(list(db.session.scalars(select(Job.id)))) == 1
    assert fake_model.requests == []


def test_two_workers_never_spend_past_the_pool(client, app, acme, fake_model, monkeypatch):
    """Six credits left, one ask's reservation: two jobs answered at once cannot both
    take them."""
    _with_bugs(client, acme)
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
                credits_charged=500 - 6,
                created_at=datetime.now(UTC),
            )
        )
        db.session.commit()
    fake_model.behaviour.delay = 0.5
    jobs = [_start(client, acme, text=f"open bugs {n}").get_json()["id"] for n in range(2)]
    # Two worker threads, each with its own session and connection, as on two machines.
    worker = Worker(app, threads=2, scheduler=False)
    worker.start()
    try:
        done = [wait_for(app, uuid.UUID(job_id)) for job_id in jobs]
    finally:
        worker.stop()
    assert max(j.started_at for j in done) < min(j.finished_at for j in done)  # they raced
    assert [job.state for job in done] == ["done", "done"]
    outcomes = sorted(job.result["answer"]["outcome"] for job in done)
    assert outcomes == ["credits_exhausted", "ok"]
    assert len(fake_model.requests) == 1
    usage = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    # The reservation that won was settled to its call's cost; the other found none left.
    assert usage["used"] == 500 - 6 + credits.cost(900 + 150)


def test_a_member_removed_before_the_job_runs_gets_nothing(client, app, acme, fake_model):
    _with_bugs(client, acme)
    configure_model(client, acme, fake_model)
    bob = add_person(app, acme.org_id, "bob@acme.test")
    started = _start(client, bob)
    assert started.status_code == 202
    with app.app_context():
        member = db.session.scalar(
            select(OrgMember).where(
                OrgMember.org_id == acme.org_id, OrgMember.account_id == bob.owner_id
            )
        )
        deactivate_member(member, actor_id=acme.owner_id)
        db.session.commit()
    worker = Worker(app, threads=1, scheduler=False)
    worker.start()
    try:
        job = wait_for(app, uuid.UUID(started.get_json()["id"]))
    finally:
        worker.stop()
    assert job.state == "dead" and job.attempts == 1
    assert job.result == {"error": {"status": 404, "detail": "No such organization."}}
    assert fake_model.requests == [] and _runs(app, acme.org_id) == []
    usage = client.get(acme.url("/analytics/credits"), headers=acme.headers).get_json()
    assert usage["used"] == 0
