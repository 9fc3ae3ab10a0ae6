"""Faults, with real ``flask jobs worker`` processes on a real Redis (issue 26), on each
database: a worker killed mid-job, the broker restarted mid-burst, a job that always
fails, two schedulers. The effect counted is the probe's ``system.probe`` event.

One Redis server (the test's own, fsyncing every write, so a restart keeps what it
acknowledged) serves the session; two worker processes with schedulers serve this
module per database, under a namespace of their own, with short timings: Redis gives a
dead worker's message back after 1 s, the sweep runs every 2 s and sends again a job
queued for 2 s. The tests here do not clean between them (the workers would fight
PostgreSQL's TRUNCATE); the module stops its workers, then cleans.
"""

from __future__ import annotations

import itertools
import logging
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import dramatiq.broker
import pytest
import redis
from flask import Flask
from sqlalchemy import func, select

from tests.conftest import _clean
from tests.factories import OrgFixture, make_org
from tests.jobs.conftest import wait_for
from tests.jobs.processes import FLASK, RedisServer, WorkerProcess, wait_until
from workspace import create_app
from workspace.core.models import Event
from workspace.extensions import db
from workspace.jobs import broker, schedule, service
from workspace.jobs.models import Job, ScheduleRun, WorkerBeat

REDELIVER_AFTER_MS = 1000
SWEEP_SECONDS = 2
WORKER_BOOT = 60.0  # importing the app is slow on a loaded machine


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@dataclass
class Faults:
    """The module's workers and the app the tests enqueue with (through Redis)."""

    app: Flask  # the session's app: reads and the cleaning
    jobs_app: Flask  # the same database, its broker the module's Redis namespace
    redis: RedisServer
    env: dict[str, str]
    logs: Path
    org: OrgFixture
    workers: list[WorkerProcess] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    def spawn(self) -> WorkerProcess:
        worker = WorkerProcess(
            self.env, self.logs / f"worker-{len(self.workers)}.log", "--threads", "2"
        )
        self.workers.append(worker)
        return worker

    def wait_alive(self, *workers: WorkerProcess) -> None:
        def alive() -> bool:
            for worker in workers:
                if worker.proc.poll() is not None:
                    raise AssertionError(f"worker exited:\n{worker.output()}")
            with self.app.app_context():
                pids = set(db.session.scalars(select(WorkerBeat.pid)))
            return {w.pid for w in workers} <= pids

        wait_until(alive, WORKER_BOOT, "workers' first heartbeat", interval=0.2)

    def worker(self, worker_id: str) -> WorkerProcess:
        pid = int(worker_id.split(":")[1])
        return next(w for w in self.workers if w.pid == pid)

    def probe(self, **args) -> uuid.UUID:
        with self.jobs_app.app_context():
            job = service.enqueue(
                "system.probe", org_id=self.org.org_id, account_id=self.org.owner_id, args=args
            )
            db.session.commit()  # the message goes to Redis after the commit
            return job.id

    def job(self, job_id: uuid.UUID) -> Job:
        with self.app.app_context():
            job = db.session.get(Job, job_id)
            db.session.expunge(job)
            return job

    def effects(self, *job_ids: uuid.UUID) -> dict[uuid.UUID, int]:
        """``system.probe`` events per job (0 for a job with none)."""
        with self.app.app_context():
            rows = db.session.execute(
                select(Event.subject, func.count())
                .where(Event.kind == "system.probe", Event.subject.in_([str(j) for j in job_ids]))
                .group_by(Event.subject)
            )
            counts = {uuid.UUID(subject): n for subject, n in rows}
        return {j: counts.get(j, 0) for j in job_ids}

    def outputs(self) -> str:
        return "\n".join(f"--- {w.log_path.name}\n{w.output()}" for w in self.workers)


@pytest.fixture(scope="module")
def faults(app_session, database_url, redis_server, tmp_path_factory) -> Iterator[Faults]:
    namespace = f"ws-faults-{uuid.uuid4().hex[:10]}"
    instance = os.environ["WORKSPACE_INSTANCE"]  # app_session's: the same keys
    settings = {
        "JOBS_BROKER_URL": redis_server.url,
        "JOBS_NAMESPACE": namespace,
        "JOBS_REDELIVER_AFTER_MS": str(REDELIVER_AFTER_MS),
        # Every Redis command also looks for dead workers' messages.
        "JOBS_MAINTENANCE_CHANCE": "1000000",
        "JOBS_SWEEP_SECONDS": str(SWEEP_SECONDS),
        "JOBS_RESEND_AFTER_SECONDS": str(SWEEP_SECONDS),
    }
    env = {
        **os.environ,
        **settings,
        "DATABASE_URL": database_url,
        "WORKSPACE_INSTANCE": instance,
        "PYTHONUNBUFFERED": "1",
    }
    # broker._live is the process's one broker: the embedded tests' in-process broker
    # comes back when this module ends.
    saved, saved_global = dict(broker._live), dramatiq.broker.global_broker
    jobs_app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "JOBS_EMBEDDED_WORKER": False,
            **settings,
        }
    )
    broker.configure(jobs_app)
    state = Faults(
        app=app_session,
        jobs_app=jobs_app,
        redis=redis_server,
        env=env,
        logs=tmp_path_factory.mktemp("worker-logs"),
        org=make_org(app_session, "Faults", "owner@faults.test"),
    )
    try:
        first = [state.spawn(), state.spawn()]
        state.wait_alive(*first)
        state.started = time.time()
        yield state
    finally:
        for worker in state.workers:
            worker.terminate()  # all at once, then wait for each
        for worker in state.workers:
            worker.stop()
        broker._live.clear()
        broker._live.update(saved)
        dramatiq.broker.global_broker = saved_global
        with jobs_app.app_context():
            db.engine.dispose()
        client = redis.Redis.from_url(redis_server.url)
        keys = list(client.scan_iter(f"{namespace}*"))
        if keys:
            client.delete(*keys)
        client.close()
        _clean(app_session)


@pytest.fixture
def show_logs(faults) -> Iterator[None]:
    """The workers' output, which pytest shows under a failing test."""
    yield
    print(faults.outputs())


def test_a_worker_killed_mid_job_is_replaced_and_the_job_runs_to_done_once(faults, show_logs):
    job_id = faults.probe(steps=20, seconds=0.1)

    def running() -> Job | None:
        job = faults.job(job_id)
        return job if job.state == "running" and job.progress_done >= 3 else None

    first = wait_until(running, 30, "the probe running")
    holder = faults.worker(first.worker_id)
    holder.kill9()
    killed_at = time.time()
    job = wait_for(faults.app, job_id, timeout=40)
    assert (job.state, job.attempts, job.last_error) == ("done", 2, None), faults.outputs()
    assert job.worker_id != first.worker_id
    assert faults.effects(job_id) == {job_id: 1}
    # Taken again once the dead worker's heartbeat went stale (service.WORKER_STALE).
    taken_after = job.started_at.timestamp() - killed_at
    assert taken_after < service.WORKER_STALE.total_seconds() + 5
    print(f"killed at step {first.progress_done}; taken again {taken_after:.1f}s after the kill")
    faults.spawn()  # two schedulers again for the last test (no wait)


def test_no_acknowledged_job_is_lost_when_the_broker_restarts_mid_burst(faults, show_logs, caplog):
    burst, down_at, up_at = 40, 12, 26
    stopping, starting, stopped = threading.Event(), threading.Event(), threading.Event()

    def restart() -> None:
        stopping.wait(30)
        faults.redis.stop()  # SIGTERM while the burst goes on
        stopped.set()
        starting.wait(30)
        faults.redis.start()

    restarter = threading.Thread(target=restart)
    restarter.start()
    ids: list[uuid.UUID] = []
    with caplog.at_level(logging.ERROR, logger="workspace.jobs.service"):
        for i in range(burst):
            if i == down_at:
                stopping.set()
            if i == up_at:
                stopped.wait(15)
                starting.set()
            ids.append(faults.probe())  # committed: acknowledged
            time.sleep(0.02)
    restarter.join(30)
    unsent = sum("committed but not sent" in r.getMessage() for r in caplog.records)
    assert unsent >= 1, "no send failed: Redis was not down during the burst"

    def all_finished() -> bool:
        with faults.app.app_context():
            states = db.session.scalars(select(Job.state).where(Job.id.in_(ids))).all()
        return len(states) == burst and all(s == "done" for s in states)

    wait_until(all_finished, 45, f"{burst} probes done ({unsent} sent only by the sweep)")
    assert faults.effects(*ids) == dict.fromkeys(ids, 1)
    print(f"{burst} enqueued, {unsent} while Redis was down (sent by the sweep), all done once")


def test_a_job_that_always_fails_ends_dead_with_its_error_shown_by_the_cli(faults, show_logs):
    job_id = faults.probe(fail=True)
    job = wait_for(faults.app, job_id, timeout=30)
    assert (job.state, job.attempts, job.max_attempts) == ("dead", 3, 3)
    assert job.last_error == "RuntimeError: The probe was asked to fail."
    assert faults.effects(job_id) == {job_id: 0}
    listed = subprocess.run(
        [*FLASK, "jobs", "list", "--state", "dead"],
        env=faults.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith(str(job_id)))
    assert "dead" in line and "attempt 3/3" in line
    assert "RuntimeError: The probe was asked to fail." in line
    assert "live worker(s)" in listed.stdout


def test_two_schedulers_fire_each_sweep_period_once(faults, show_logs):
    """The workers' schedulers run all along; at three period boundaries, four more
    claimers (threads here, through the same database) try the same period at once."""
    contenders, boundaries = 4, 3
    started: list[list[str]] = []

    def claim(barrier: threading.Barrier) -> None:
        barrier.wait(10)
        with faults.jobs_app.app_context():
            started.append(schedule.fire_due(datetime.now(UTC), "test-contender"))

    for _ in range(boundaries):
        time.sleep(SWEEP_SECONDS - time.time() % SWEEP_SECONDS + 0.001)
        barrier = threading.Barrier(contenders)
        threads = [threading.Thread(target=claim, args=(barrier,)) for _ in range(contenders)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
    assert len(started) == contenders * boundaries
    time.sleep(SWEEP_SECONDS)  # the workers' last sweep committed
    with faults.app.app_context():
        jobs = db.session.scalars(select(Job).where(Job.kind == "jobs.sweep")).all()
        runs = db.session.scalars(
            select(ScheduleRun)
            .where(ScheduleRun.schedule == "jobs.sweep")
            .order_by(ScheduleRun.period_start)
        ).all()
        starts = [r.period_start.timestamp() for r in runs]
        # One run and one job per period, each period of the module's run claimed.
        assert len(set(starts)) == len(starts) >= boundaries
        assert {r.job_id for r in runs} == {j.id for j in jobs} and len(jobs) == len(runs)
        gaps = [b - a for a, b in itertools.pairwise(starts) if b - a != SWEEP_SECONDS]
        late = time.time() - 3 * SWEEP_SECONDS
        assert all(j.state == "done" for j in jobs if j.created_at.timestamp() < late)
        schedulers = {r.claimed_by for r in runs}
    # The sweep's periods only: the other schedules (alerts, the hourly slot fold) have
    # periods of their own, which a contender may claim once as well.
    won = sum(names.count("jobs.sweep") for names in started)
    assert won <= boundaries
    print(
        f"{len(runs)} sweep periods over {starts[-1] - starts[0] + SWEEP_SECONDS:.0f}s, one run "
        f"and one job each, claimed by {len(schedulers)} scheduler(s), {len(gaps)} gap(s); "
        f"{contenders * boundaries} contending claims won {won}"
    )
