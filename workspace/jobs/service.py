"""Starting jobs and reading how they went. Like every service, these flush and never
commit: a job's message goes to the broker only once the request that made it commits
(an ``after_commit`` hook), so a worker never looks for a row that is not there yet."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, event, func, or_, select, update
from sqlalchemy.orm import Session

from workspace.errors import ConflictError, NotFoundError
from workspace.extensions import db
from workspace.jobs import broker
from workspace.jobs.models import FINISHED, UNFINISHED, Job, JobFile, JobState, WorkerBeat
from workspace.jobs.registry import HANDLERS
from workspace.types import utcnow

log = logging.getLogger(__name__)

#: A worker whose heartbeat is older than this is taken for dead: its running jobs
#: may be claimed again (docs/jobs.md#faults).
WORKER_STALE = timedelta(seconds=10)
_PENDING = "workspace.jobs.to_send"


def enqueue(
    kind: str,
    *,
    org_id: uuid.UUID | None = None,
    account_id: uuid.UUID | None = None,
    args: dict[str, Any] | None = None,
) -> Job:
    """A new ``kind`` job, sent to its queue when the transaction commits."""
    handler = HANDLERS[kind]
    job = Job(
        kind=kind,
        queue=handler.queue,
        org_id=org_id,
        account_id=account_id,
        args=args or {},
        state=JobState.QUEUED,
        max_attempts=handler.max_attempts,
    )
    db.session.add(job)
    db.session.flush()
    _send_on_commit([(kind, str(job.id))])
    return job


def _send_pending(session: Session) -> None:
    for kind, job_id in session.info.pop(_PENDING, []):
        try:
            broker.send(kind, job_id)
        except Exception:  # the row is committed: the sweep sends it again
            log.exception(
                "job %s (%s) committed but not sent; the sweep will send it", job_id, kind
            )


def _drop_pending(session: Session, *args: Any) -> None:
    session.info.pop(_PENDING, None)


def _send_on_commit(messages: list[tuple[str, str]]) -> None:
    """Send ``messages`` when this session commits, drop them if it rolls back. The
    hooks are the session's own, so sessions that start no job never run them."""
    session = db.session()
    session.info.setdefault(_PENDING, []).extend(messages)
    if not event.contains(session, "after_commit", _send_pending):
        event.listen(session, "after_commit", _send_pending)
        event.listen(session, "after_rollback", _drop_pending)


def count_unfinished(kind: str, **where: uuid.UUID) -> int:
    """How many ``kind`` jobs are queued, running or retrying, narrowed by column
    (``org_id=…``, ``account_id=…``): what a bound on work in flight counts."""
    query = select(func.count()).select_from(Job).where(Job.kind == kind)
    query = query.where(Job.state.in_(UNFINISHED))
    for column, value in where.items():
        query = query.where(getattr(Job, column) == value)
    return db.session.scalar(query) or 0


def get_job(job_id: uuid.UUID, org_id: uuid.UUID | None = None) -> Job:
    """A job, only within ``org_id`` when given (another org's: 404)."""
    job = db.session.get(Job, job_id)
    if job is None or (org_id is not None and job.org_id != org_id):
        raise NotFoundError("No such job.")
    return job


def list_jobs(*, state: str | None = None, limit: int = 50) -> list[Job]:
    query = select(Job).order_by(Job.created_at.desc()).limit(limit)
    if state:
        query = query.where(Job.state == state)
    return list(db.session.scalars(query))


def retry(job: Job) -> Job:
    """A dead job runs again, with its attempts counted afresh."""
    if job.job_state is not JobState.DEAD:
        raise ConflictError("Only a job that failed every attempt can be retried.")
    job.state, job.attempts, job.worker_id = JobState.QUEUED, 0, None
    job.finished_at = None
    db.session.flush()
    _send_on_commit([(job.kind, str(job.id))])
    return job


def purge(*, older_than: timedelta, states: tuple[str, ...] = FINISHED) -> int:
    """Forget finished jobs (and their files) older than ``older_than``."""
    cutoff = utcnow() - older_than
    result = db.session.execute(delete(Job).where(Job.state.in_(states), Job.created_at < cutoff))
    return result.rowcount or 0


def live_workers(now: datetime | None = None) -> list[WorkerBeat]:
    cutoff = (now or utcnow()) - WORKER_STALE
    return list(
        db.session.scalars(
            select(WorkerBeat).where(WorkerBeat.seen_at >= cutoff).order_by(WorkerBeat.id)
        )
    )


def save_file(job: Job, filename: str, media_type: str, content: bytes, keep: timedelta) -> JobFile:
    file = JobFile(
        job_id=job.id,
        filename=filename,
        media_type=media_type,
        content=content,
        expires_at=utcnow() + keep,
    )
    db.session.merge(file)
    db.session.flush()
    return file


def job_file(job: Job) -> JobFile:
    """The file a finished job made; 409 while it runs, 404 once it expired."""
    if not job.job_state.finished:
        raise ConflictError("The job is still running; its file is not made yet.")
    file = db.session.get(JobFile, job.id)
    if file is None or file.expires_at < utcnow():
        raise NotFoundError("The file has expired or was never made; start the job again.")
    return file


def unsent(older_than: timedelta) -> list[Job]:
    """Jobs whose message may be lost: queued longer than ``older_than``, running on a
    worker whose heartbeat stopped (a restart of the embedded default loses its queue),
    or waiting to be retried past the longest backoff any handler asks for (the
    broker's delayed message was lost, e.g. with a Redis that keeps nothing on disk)."""
    now = utcnow()
    alive = select(WorkerBeat.id).where(WorkerBeat.seen_at >= now - WORKER_STALE)
    longest = max((h.max_backoff for h in HANDLERS.values()), default=0)
    retry_lost = now - older_than - timedelta(milliseconds=longest)
    return list(
        db.session.scalars(
            select(Job).where(
                or_(
                    (Job.state == JobState.QUEUED) & (Job.created_at < now - older_than),
                    (Job.state == JobState.RUNNING)
                    & or_(Job.worker_id.is_(None), Job.worker_id.not_in(alive)),
                    (Job.state == JobState.RETRYING) & (Job.started_at < retry_lost),
                )
            )
        )
    )


def resend_after(config: Mapping[str, Any]) -> timedelta:
    """How long a job may wait queued before the sweep takes its message for lost
    (``JOBS_RESEND_AFTER_SECONDS``); a message sent twice runs once (the claim)."""
    return timedelta(seconds=float(config.get("JOBS_RESEND_AFTER_SECONDS", 30)))


def resend(jobs: list[Job]) -> None:
    """Send these jobs' messages again once the session commits."""
    _send_on_commit([(j.kind, str(j.id)) for j in jobs])


def expire_files() -> int:
    result = db.session.execute(delete(JobFile).where(JobFile.expires_at < utcnow()))
    return result.rowcount or 0


def forget_workers(older_than: timedelta) -> int:
    result = db.session.execute(
        delete(WorkerBeat).where(WorkerBeat.seen_at < utcnow() - older_than)
    )
    return result.rowcount or 0


def report_progress(job_id: uuid.UUID, done: int, total: int, text: str) -> None:
    """What a running job has done, written at once on a connection of its own: the
    job's own transaction commits only at its end."""
    with db.engine.begin() as conn:
        conn.execute(
            update(Job)
            .where(Job.id == job_id)
            .values(progress_done=done, progress_total=total, progress_text=text[:200])
        )
