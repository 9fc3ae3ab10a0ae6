"""For a caller that waits on a job (the synchronous ``export.pdf`` and ``ask``): the
job run to its end, and its refusal as the error the API answers."""

from __future__ import annotations

import logging
import time
import uuid

from flask import current_app

from workspace.errors import BusyError, ServiceError
from workspace.extensions import db
from workspace.jobs import broker, runner, service
from workspace.jobs.models import FAILED_IN_WORDS, Job
from workspace.transaction import commit_early

log = logging.getLogger(__name__)


def run_to_end(job_id: uuid.UUID, *, wait_seconds: float, still_running: str) -> Job:
    """The job once finished. On the embedded default this process is its worker, so
    it runs here, each attempt at once (the caller waits anyway); otherwise a worker
    runs it and this waits, up to ``wait_seconds`` (then 503 ``still_running``). The
    job's row must be committed first."""
    if broker.embedded(current_app):
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        attempts = service.get_job(job_id).max_attempts
        _hand_back_connection()
        for _ in range(attempts):
            try:
                runner.run(app, str(job_id))
            except Exception:  # recorded on the job: its state says whether to go on
                log.warning("job %s: an attempt failed", job_id, exc_info=True)
            db.session.expire_all()
            finished = service.get_job(job_id).job_state.finished
            _hand_back_connection()
            if finished:
                break
    deadline = time.monotonic() + wait_seconds
    while True:
        db.session.expire_all()
        job = service.get_job(job_id)
        if job.job_state.finished:
            return job
        if time.monotonic() > deadline:
            raise BusyError(still_running)
        _hand_back_connection()
        time.sleep(0.05)


def _hand_back_connection() -> None:
    """End the waiting request's read so its connection goes back to the pool while
    the job runs or the worker works. Held, a burst of waiting requests deadlocked the
    pool: each held one connection and the job it ran inline needed two more (its unit
    of work and its progress reports)."""
    commit_early("a request that waits on a job holds no connection while it waits")


def refusal(job: Job, fallback: str) -> ServiceError:
    """A finished job's refusal or failure as the error the API answers: the
    refusal's own status (a 429 with its Retry-After), 503 for a failure."""
    error = job.refusal
    # A refusal says what to fix in its own words; a failure says only that it failed.
    failed = f"{fallback} {FAILED_IN_WORDS}"
    refused = ServiceError(error.get("detail") or failed)
    refused.status = int(error.get("status", 503))
    refused.retry_after = error.get("retry_after")
    return refused
