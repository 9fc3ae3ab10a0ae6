"""The System page is for the instance's operators only (SYSTEM_OPERATORS): the
anonymous go to sign in, anyone else gets a 404. Operators retry, discard (after a
confirmation) and probe from it."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from tests.factories import login
from tests.system.conftest import add_job, job_state, wait_for_state
from workspace.extensions import db
from workspace.jobs.models import Job, JobState

PAGES = [
    ("get", "/system"),
    ("post", "/system/probe"),
    ("post", "/system/jobs/{job}/retry"),
    ("get", "/system/jobs/{job}/discard"),
    ("post", "/system/jobs/{job}/discard"),
]


@pytest.mark.parametrize(("method", "path"), PAGES)
def test_the_anonymous_are_sent_to_sign_in(app, client, acme, method, path):
    job = add_job(app, acme.org_id)
    response = getattr(client, method)(path.format(job=job))
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/signin?next=/system")
    assert job_state(app, job) == JobState.DEAD


@pytest.mark.parametrize(("method", "path"), PAGES)
def test_an_org_owner_who_is_not_an_operator_gets_404(app, client, acme, globex, method, path):
    app.config["SYSTEM_OPERATORS"] = (globex.owner_email,)
    try:
        job = add_job(app, acme.org_id)
        login(client, acme.owner_email)
        response = getattr(client, method)(path.format(job=job), data={"confirm": "true"})
        assert response.status_code == 404
        assert job_state(app, job) == JobState.DEAD
        assert client.get(f"/o/{acme.slug}/").status_code == 200
        assert b">System<" not in client.get(f"/o/{acme.slug}/").data
    finally:
        app.config["SYSTEM_OPERATORS"] = ()


def test_nobody_is_an_operator_by_default(app, client, acme):
    login(client, acme.owner_email)
    assert client.get("/system").status_code == 404


def test_an_operator_sees_queues_workers_and_failures_and_the_nav_link(
    app, client, operator, globex, worker
):
    add_job(app, globex.org_id, last_error="ValueError: Globex's export broke")
    add_job(app, None, kind="jobs.sweep", state=JobState.RUNNING, progress_text="Halfway",
            worker_id=None, finished_at=None, attempts=1)  # fmt: skip
    add_job(app, None, state=JobState.QUEUED, finished_at=None, started_at=None, attempts=0)
    login(client, operator.owner_email)
    page = client.get("/system")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"
    assert "ValueError: Globex&#39;s export broke" in html  # another org's error: instance-wide
    assert "Globex" in html and "Halfway" in html
    assert "Failed (1)" in html and "Running (1)" in html
    assert 'hx-trigger="every 3s"' in html
    assert "Live</span>" in html  # the worker's heartbeat
    home = client.get(f"/o/{operator.slug}/").get_data(as_text=True)
    assert 'href="/system"' in home


def test_the_live_part_alone_answers_htmx(client, operator):
    login(client, operator.owner_email)
    part = client.get("/system", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert part.lstrip().startswith('<div id="system-live"')
    assert "<html lang" not in part and "/system/probe" not in part


def test_retry_queues_a_dead_job_again(app, client, operator):
    job = add_job(app, operator.org_id)
    login(client, operator.owner_email)
    response = client.post(f"/system/jobs/{job}/retry")
    assert response.status_code == 303
    assert response.headers["Location"] == "/system#failed"
    with app.app_context():
        row = db.session.get(Job, job)
        assert (row.state, row.attempts) == (JobState.QUEUED, 0)
    assert "queued again" in client.get("/system").get_data(as_text=True)


def test_retry_refuses_a_job_that_is_not_dead(app, client, operator):
    job = add_job(app, operator.org_id, state=JobState.DONE, last_error=None)
    login(client, operator.owner_email)
    response = client.post(f"/system/jobs/{job}/retry", follow_redirects=True)
    assert "Only a job that failed every attempt can be retried." in response.get_data(as_text=True)
    assert job_state(app, job) == JobState.DONE


def test_discard_asks_first_then_deletes(app, client, operator):
    job = add_job(app, operator.org_id)
    login(client, operator.owner_email)
    asked = client.post(f"/system/jobs/{job}/discard")
    assert asked.status_code == 303
    assert asked.headers["Location"] == f"/system/jobs/{job}/discard"
    assert job_state(app, job) == JobState.DEAD
    confirm = client.get(f"/system/jobs/{job}/discard").get_data(as_text=True)
    assert "Discard a failed job" in confirm and "The probe was asked to fail." in confirm
    assert 'name="confirm" value="true"' in confirm
    done = client.post(f"/system/jobs/{job}/discard", data={"confirm": "true"})
    assert done.status_code == 303
    assert job_state(app, job) is None


def test_discard_refuses_a_running_job_and_an_unknown_one(app, client, operator):
    job = add_job(app, operator.org_id, state=JobState.RUNNING, finished_at=None)
    login(client, operator.owner_email)
    refused = client.post(f"/system/jobs/{job}/discard", data={"confirm": "true"})
    assert refused.status_code == 303
    assert job_state(app, job) == JobState.RUNNING
    assert client.get(f"/system/jobs/{job}/discard").status_code == 303
    unknown = client.post(f"/system/jobs/{uuid.uuid4()}/discard", data={"confirm": "true"})
    assert unknown.status_code == 404


def test_a_probe_is_taken_by_a_worker_end_to_end(app, client, operator, worker):
    login(client, operator.owner_email)
    response = client.post("/system/probe")
    assert response.status_code == 303
    assert response.headers["Location"] == "/system#probes"
    with app.app_context():
        job = db.session.scalars(select(Job).where(Job.kind == "system.probe")).one()
        assert job.account_id == operator.owner_id and job.org_id is None
    wait_for_state(app, job.id, JobState.DONE)
    assert "Step 3 of 3" in client.get("/system").get_data(as_text=True)
