"""What the System page shows of the instance's job queue, and what its operators do
to it: retry a dead job (``jobs.service.retry``), discard one, run a probe. Like every
service, these flush and never commit."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import current_app
from sqlalchemy import func, select

from workspace import replica
from workspace.core.models import Account, Org
from workspace.errors import ConflictError
from workspace.extensions import db
from workspace.jobs import broker as jobs_broker
from workspace.jobs import registry
from workspace.jobs import service as jobs
from workspace.jobs.models import UNFINISHED, Job, JobState, WorkerBeat
from workspace.system.health import redis_client
from workspace.types import utcnow

log = logging.getLogger(__name__)

#: How many rows each list of the page shows (newest first).
LIST_LIMIT = 50
#: The probe an operator runs: a few short steps, so its progress can be watched.
PROBE_ARGS = {"steps": 3, "seconds": 0.5}
PROBE_KIND = "system.probe"


@dataclass
class QueueDepth:
    queue: str
    queued: int = 0
    retrying: int = 0
    running: int = 0
    #: Messages waiting in Redis itself (ready and delayed); None on other brokers.
    in_broker: int | None = None


@dataclass
class JobRow:
    job: Job
    org_name: str | None


@dataclass
class WorkerRow:
    beat: WorkerBeat
    live: bool


@dataclass
class Overview:
    now: datetime
    broker: str
    queues: list[QueueDepth]
    running: list[JobRow]
    dead: list[JobRow]
    dead_total: int
    workers: list[WorkerRow]
    probes: list[Job] = field(default_factory=list)
    #: Why the broker's own queue lengths are missing, when they are.
    broker_note: str | None = None
    #: The read replica's lag (``replica.lag()``), None when there is none.
    replica: dict[str, Any] | None = None


def overview() -> Overview:
    """Everything the page shows, read in one go."""
    now = utcnow()
    depths = queue_depths()
    note = _add_broker_lengths(depths)
    dead = _jobs(JobState.DEAD, Job.finished_at.desc())
    dead_total = db.session.scalar(select(func.count()).where(Job.state == JobState.DEAD))
    return Overview(
        now=now,
        broker=broker_kind(),
        queues=depths,
        running=_jobs(JobState.RUNNING, Job.started_at),
        dead=dead,
        dead_total=int(dead_total or 0),
        workers=workers(now),
        probes=list(
            db.session.scalars(
                select(Job).where(Job.kind == PROBE_KIND).order_by(Job.created_at.desc()).limit(5)
            )
        ),
        broker_note=note,
        replica=replica.lag(),
    )


def broker_kind() -> str:
    url = jobs_broker.broker_url(current_app)
    if not url:
        return "embedded"
    return "rabbitmq" if url.startswith("amqp") else "redis"


def queue_depths() -> list[QueueDepth]:
    """Jobs waiting (queued, retrying) and running per queue, from the jobs table;
    every queue a handler names is listed, an empty one too."""
    depths = {name: QueueDepth(name) for name in registry.queues()}
    rows = db.session.execute(
        select(Job.queue, Job.state, func.count())
        .where(Job.state.in_(UNFINISHED))
        .group_by(Job.queue, Job.state)
    )
    for queue, state, count in rows:
        depth = depths.setdefault(queue, QueueDepth(queue))
        setattr(depth, state, int(count))
    return [depths[name] for name in sorted(depths)]


def _add_broker_lengths(depths: list[QueueDepth]) -> str | None:
    """Redis's own count of each queue's messages (Dramatiq's ``ns:queue`` list and
    its ``.DQ`` delay queue); a note instead when Redis does not answer quickly."""
    url = jobs_broker.broker_url(current_app)
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    namespace = current_app.config.get("JOBS_NAMESPACE", "workspace-jobs")
    client = redis_client(url, 0.5)
    try:
        with client.pipeline(transaction=False) as pipe:
            for depth in depths:
                pipe.llen(f"{namespace}:{depth.queue}")
                pipe.llen(f"{namespace}:{depth.queue}.DQ")
            counts = pipe.execute()
    except Exception:
        return "Redis did not answer, so its own queue lengths are not shown."
    finally:
        client.close()
    for index, depth in enumerate(depths):
        depth.in_broker = int(counts[2 * index]) + int(counts[2 * index + 1])
    return None


def _jobs(state: JobState, order) -> list[JobRow]:
    rows = db.session.execute(
        select(Job, Org.name)
        .outerjoin(Org, Org.id == Job.org_id)
        .where(Job.state == state)
        .order_by(order, Job.id)
        .limit(LIST_LIMIT)
    )
    return [JobRow(job, org_name) for job, org_name in rows]


def workers(now: datetime) -> list[WorkerRow]:
    """Every worker that beat recently enough to be remembered, latest first."""
    cutoff = now - jobs.WORKER_STALE
    beats = db.session.scalars(
        select(WorkerBeat).order_by(WorkerBeat.seen_at.desc(), WorkerBeat.id).limit(LIST_LIMIT)
    )
    return [WorkerRow(beat, beat.seen_at >= cutoff) for beat in beats]


def dead_job(job_id: uuid.UUID) -> JobRow:
    """A dead job of any org (the operator's page is the instance's) with its org's
    name: 404 when unknown, 409 when it is not dead."""
    job = jobs.get_job(job_id)
    if job.job_state is not JobState.DEAD:
        raise ConflictError("Only a job that failed every attempt can be discarded.")
    org = db.session.get(Org, job.org_id) if job.org_id else None
    return JobRow(job, org.name if org else None)


def retry(job_id: uuid.UUID, operator: Account) -> Job:
    job = jobs.retry(jobs.get_job(job_id))
    log.info("operator %s retried job %s (%s)", operator.email, job.id, job.kind)
    return job


def discard(job_id: uuid.UUID, operator: Account) -> Job:
    """Delete a dead job's row (its files go with it): it will not run again and its
    error is gone. Only a dead job: one that may still run is not the operator's to
    drop from under its worker."""
    job = dead_job(job_id).job
    db.session.delete(job)
    db.session.flush()
    log.info("operator %s discarded job %s (%s)", operator.email, job.id, job.kind)
    return job


def run_probe(operator: Account) -> Job:
    """A ``system.probe`` job: a worker takes it, steps through it and finishes it."""
    return jobs.enqueue(PROBE_KIND, account_id=operator.id, args=dict(PROBE_ARGS))
