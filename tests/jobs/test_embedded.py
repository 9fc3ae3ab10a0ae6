"""The job path on the embedded default (what ``make run`` uses): a job runs once, says
how far it got, fails into a dead state with its error after its attempts, runs again
when retried, and never runs twice however often its message arrives."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from tests.jobs.conftest import wait_for
from workspace.core.models import Event
from workspace.extensions import db
from workspace.jobs import broker, runner, schedule, service
from workspace.jobs.models import Job, ScheduleRun, WorkerBeat
from workspace.jobs.registry import HANDLERS, handler
from workspace.types import utcnow


def _probe(app, org, **args):
    with app.app_context():
        job = service.enqueue("system.probe", org_id=org.org_id, account_id=org.owner_id, args=args)
        db.session.commit()
        return job.id


def _probe_events(app, job_id) -> int:
    with app.app_context():
        return db.session.scalar(
            select(func.count())
            .select_from(Event)
            .where(Event.kind == "system.probe", Event.subject == str(job_id))
        )


def test_a_job_runs_once_and_reports_its_progress(app, acme, embedded_worker):
    job_id = _probe(app, acme, steps=3)
    job = wait_for(app, job_id)
    assert (job.state, job.attempts, job.last_error) == ("done", 1, None)
    assert (job.progress_text, job.progress_total) == ("Step 3 of 3", 3)
    assert job.result == {"steps": 3}
    assert job.started_at <= job.finished_at
    assert _probe_events(app, job_id) == 1


def test_a_job_that_always_fails_ends_dead_with_its_error_and_can_be_retried(
    app, acme, embedded_worker
):
    job_id = _probe(app, acme, fail=True)
    job = wait_for(app, job_id)
    assert (job.state, job.attempts) == ("dead", 3)
    assert job.last_error == "RuntimeError: The probe was asked to fail."
    assert _probe_events(app, job_id) == 0
    with app.app_context():
        service.retry(service.get_job(job_id))
        db.session.commit()
    assert wait_for(app, job_id, states=("running", "retrying", "dead")).attempts >= 1
    assert wait_for(app, job_id).attempts == 3


def test_a_message_delivered_again_never_runs_a_finished_job_twice(app, acme, embedded_worker):
    job_id = _probe(app, acme)
    wait_for(app, job_id)
    for _ in range(3):
        broker.send("system.probe", str(job_id))
    time.sleep(0.5)
    assert _probe_events(app, job_id) == 1
    assert wait_for(app, job_id).attempts == 1


def test_a_job_whose_request_rolls_back_is_never_sent(app, acme, embedded_worker):
    with app.app_context():
        job = service.enqueue("system.probe", org_id=acme.org_id)
        job_id = job.id
        db.session.rollback()
    time.sleep(0.5)
    with app.app_context():
        assert db.session.get(Job, job_id) is None
    assert _probe_events(app, job_id) == 0


def test_two_schedulers_start_one_job_per_period(app):
    now = datetime(2026, 11, 27, 12, 0, 30, tzinfo=UTC)
    with app.app_context():
        names = [s.name for s in schedule.current()]
        assert "jobs.sweep" in names
        first = schedule.fire_due(now, "worker-a")
        second = schedule.fire_due(now + timedelta(seconds=5), "worker-b")
        # every schedule starts once in its period, by whichever scheduler came first
        assert sorted(first) == sorted(names) and second == []
        runs = db.session.scalars(select(ScheduleRun)).all()
        assert sorted((r.schedule, r.claimed_by) for r in runs) == sorted(
            (name, "worker-a") for name in names
        )
        assert db.session.scalar(select(func.count()).select_from(Job)) == len(names)
        assert "jobs.sweep" in schedule.fire_due(now + timedelta(minutes=1), "worker-b")


def test_the_cli_lists_retries_and_purges(app, acme, embedded_worker):
    dead_id = _probe(app, acme, fail=True)
    done_id = _probe(app, acme)
    wait_for(app, dead_id)
    wait_for(app, done_id)
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["jobs", "list", "--state", "dead"])
    assert str(dead_id) in listed.output and str(done_id) not in listed.output
    assert "The probe was asked to fail." in listed.output
    assert "1 live worker(s)" in listed.output
    refused = runner.invoke(args=["jobs", "retry", str(done_id)])
    assert refused.exit_code == 1 and "Only a job that failed every attempt" in refused.output
    again = runner.invoke(args=["jobs", "retry", str(dead_id)])
    assert again.exit_code == 0 and "queued again" in again.output
    assert wait_for(app, dead_id).attempts == 3
    purged = runner.invoke(args=["jobs", "purge", "--older-than-days", "0", "--dead"])
    assert purged.exit_code == 0 and "1 job(s) purged" in purged.output
    with app.app_context():
        assert db.session.get(Job, dead_id) is None
        assert db.session.get(Job, done_id) is not None


def test_a_message_for_a_job_held_by_a_worker_that_stops_comes_back_once_it_looks_dead(
    app, acme, embedded_worker, monkeypatch
):
    """Redis gives a killed worker's message back before its heartbeat is stale: that
    delivery finds the job running on a worker that looks alive. It must not be dropped
    (it is the job's only message) but come back once the holder looks dead."""
    monkeypatch.setattr(runner, "WORKER_STALE", timedelta(seconds=1))
    ghost = "ghost:1:dead00"
    with app.app_context():
        now = utcnow()
        db.session.add(
            WorkerBeat(id=ghost, host="ghost", pid=1, queues="default", started_at=now, seen_at=now)
        )
        job = Job(
            kind="system.probe",
            queue="default",
            org_id=acme.org_id,
            args={},
            state="running",
            attempts=1,
            max_attempts=3,
            worker_id=ghost,
            started_at=now,
        )
        db.session.add(job)
        db.session.commit()
        job_id = job.id
    broker.send("system.probe", str(job_id))  # what Redis redelivers
    job = wait_for(app, job_id, timeout=10)
    assert (job.state, job.attempts) == ("done", 2)
    assert job.worker_id != ghost
    assert _probe_events(app, job_id) == 1


@pytest.fixture
def overrunning_kind() -> Iterator[str]:
    """A handler that outlasts its time limit (registered before the worker starts)."""
    kind = "tests.overrun"

    @handler(kind, max_attempts=1, time_limit_ms=100)
    def overrun(job, progress) -> None:
        for _ in range(100):
            time.sleep(0.05)

    yield kind
    HANDLERS.pop(kind)


def test_an_attempt_past_its_time_limit_is_stopped_and_recorded(
    app, overrunning_kind, embedded_worker
):
    with app.app_context():
        job = service.enqueue(overrunning_kind)
        db.session.commit()
        job_id = job.id
    job = wait_for(app, job_id, timeout=4)
    assert (job.state, job.attempts) == ("dead", 1)
    assert job.last_error.startswith("TimeLimitExceeded")


def test_the_sweep_finds_a_retry_whose_delayed_message_was_lost(app, acme):
    """A retry waits in the broker's delay queue; a broker that lost it (restarted,
    nothing on disk) would leave the job retrying for ever, so past the longest
    backoff the sweep sends it again."""
    from workspace.jobs.models import JobState
    from workspace.types import utcnow

    with app.app_context():
        recent = service.enqueue("system.probe", org_id=acme.org_id)
        stale = service.enqueue("system.probe", org_id=acme.org_id)
        db.session.commit()
        recent.state, recent.started_at = JobState.RETRYING, utcnow()
        stale.state, stale.started_at = JobState.RETRYING, utcnow() - timedelta(hours=1)
        db.session.commit()
        lost = {job.id for job in service.unsent(older_than=timedelta(seconds=30))}
        assert stale.id in lost and recent.id not in lost
