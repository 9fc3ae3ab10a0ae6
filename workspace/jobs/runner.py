"""One attempt at one job, in a worker: claim it, run its handler, and record how it
went (docs/jobs.md#what-a-job-goes-through).

The claim is a conditional UPDATE, so of two deliveries of the same message (the broker
brought back a message whose worker seemed dead; the sweep sent a lost one again) only
one runs, and a job already done is never run again. The handler's writes commit in
the same transaction as ``done``: a worker killed before that commit leaves nothing, and
the next delivery starts over.

A delivery that finds its job running on a worker whose heartbeat still looks alive is
not dropped: Redis brings a killed worker's message back after
``JOBS_REDELIVER_AFTER_MS``, usually before that worker's heartbeat is stale, and that
message is the job's only one. It comes back once the holder would be stale.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from datetime import timedelta

from dramatiq.middleware import Interrupt
from flask import Flask
from sqlalchemy import or_, select, update

from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.jobs import broker
from workspace.jobs.models import Job, JobState, WorkerBeat
from workspace.jobs.registry import HANDLERS
from workspace.jobs.service import WORKER_STALE, report_progress
from workspace.transaction import unit_of_work
from workspace.types import utcnow

log = logging.getLogger(__name__)

#: This process's name in job rows and heartbeats: host, pid and a random tail (a pid
#: is reused after a restart; the tail is not).
WORKER_ID = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"

#: How long a failure message may be in a job's row and on the System page.
MAX_ERROR = 1000


def _claim(job_id: uuid.UUID) -> Job | None:
    """Take the job for this worker, or None when it is finished or another live
    worker has it."""
    now = utcnow()
    alive = select(WorkerBeat.id).where(WorkerBeat.seen_at >= now - WORKER_STALE)
    claimable = or_(
        Job.state.in_((JobState.QUEUED, JobState.RETRYING)),
        (Job.state == JobState.RUNNING) & or_(Job.worker_id.is_(None), Job.worker_id.not_in(alive)),
    )
    claimed = db.session.execute(
        update(Job)
        .where(Job.id == job_id, claimable)
        .values(
            state=JobState.RUNNING,
            attempts=Job.attempts + 1,
            worker_id=WORKER_ID,
            started_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    if not claimed.rowcount:
        return None
    return db.session.get(Job, job_id)


def run(app: Flask, job_id: str) -> None:
    """Run one delivery of ``job_id``; raise to have the broker retry it later."""
    with app.app_context():
        try:
            ident = uuid.UUID(job_id)
        except ValueError:
            log.error("a job message with no job id: %r", job_id)
            return
        with unit_of_work():
            job = _claim(ident)
        if job is None:
            _look_again_later(ident)
            return
        if job.attempts > job.max_attempts:
            # Every delivery so far ended with its worker gone (killed, out of memory):
            # stop here rather than take more workers down with it.
            with unit_of_work():
                _finish_failed(job, "The worker running this job stopped before it finished.")
            return
        handler = HANDLERS.get(job.kind)
        if handler is None:
            with unit_of_work():
                _finish_failed(job, f"No handler for job kind {job.kind!r}.", final=True)
            return
        try:
            with unit_of_work():  # the handler's writes commit together with `done`
                handler.run(
                    job, lambda done, total, text: report_progress(ident, done, total, text)
                )
                job.state, job.finished_at = JobState.DONE, utcnow()
                job.progress_done = job.progress_total
        except ServiceError as exc:
            # A refusal (the asker lost access, the dashboard is gone) will not change
            # on a retry: the job ends here, with the refusal's status for the API.
            refusal = {"status": exc.status, "detail": exc.message}
            if exc.retry_after:
                refusal["retry_after"] = exc.retry_after
            with unit_of_work():
                job = db.session.get(Job, ident)
                job.result = {"error": refusal}
                _finish_failed(job, exc.message, final=True)
        except (Exception, Interrupt) as exc:
            # Interrupt: the attempt outran its time limit (TimeLimitExceeded is not an
            # Exception); recorded like any failure, or the job stayed running here.
            message = f"{type(exc).__name__}: {exc}"[:MAX_ERROR]
            log.warning("job %s (%s) attempt failed: %s", job_id, handler.kind, message)
            with unit_of_work():
                dead = _finish_failed(db.session.get(Job, ident), message)
            if not dead:
                raise


def _look_again_later(job_id: uuid.UUID) -> None:
    """A delivery of a job another worker holds: send it again for when that worker,
    if it is dead, will look dead (a job finished or gone needs nothing)."""
    row = db.session.execute(
        select(Job.kind, Job.state, Job.worker_id).where(Job.id == job_id)
    ).first()
    if row is None or row.state != JobState.RUNNING:
        return
    seen = db.session.scalar(select(WorkerBeat.seen_at).where(WorkerBeat.id == row.worker_id))
    wait = WORKER_STALE - (utcnow() - seen) if seen is not None else timedelta(0)
    delay_ms = max(500, int(wait.total_seconds() * 1000) + 500)
    log.info("job %s is running on %s; looking again in %d ms", job_id, row.worker_id, delay_ms)
    broker.send(row.kind, str(job_id), delay_ms=delay_ms)


def _finish_failed(job: Job, message: str, *, final: bool = False) -> bool:
    """Record a failed attempt (the caller's unit of work commits it); True when it
    was the last (the job is dead)."""
    dead = final or job.attempts >= job.max_attempts
    job.last_error = message
    job.state = JobState.DEAD if dead else JobState.RETRYING
    if dead:
        job.finished_at = utcnow()
    return dead
