"""The durable record of work done outside a request (docs/jobs.md): each job's state,
attempts, last error, progress and timing; the files jobs make; the workers' heartbeats;
and the claim that lets one scheduler, of any number, start each period's run."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class JobState(StrEnum):
    QUEUED = "queued"  # waiting for a worker
    RUNNING = "running"  # a worker claimed it (its heartbeat says it is alive)
    RETRYING = "retrying"  # an attempt failed; the broker brings it back after a backoff
    DONE = "done"
    DEAD = "dead"  # every attempt failed: kept with its last error until retried or purged

    @property
    def finished(self) -> bool:
        return self in FINISHED


#: The states a job ends in, and those it may still move out of (what the bounds on
#: work in flight count).
FINISHED = (JobState.DONE, JobState.DEAD)
UNFINISHED = tuple(state for state in JobState if state not in FINISHED)

#: What the person who started a job reads when it failed rather than was refused. The
#: exception text is for whoever runs the service (``last_error``, the worker's log): a
#: Python error class means nothing to a member, and its text may name internals.
FAILED_IN_WORDS = "Something went wrong on our side; try again in a moment."


class Job(db.Model):
    """One piece of work: what to run (``kind`` and ``args``), for whom, and how it went."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_state_created", "state", "created_at"),
        Index("ix_jobs_org_created", "org_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    #: The handler's name, e.g. ``dashboard.pdf`` (workspace/jobs/registry.py).
    kind: Mapped[str] = mapped_column(String(80))
    queue: Mapped[str] = mapped_column(String(40), default="default")
    #: None for the instance's own work (a schedule's sweep).
    org_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), index=False
    )
    #: Who asked; their permissions are checked again when the job runs.
    account_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    args: Mapped[dict] = mapped_column(JSON, default=dict)
    state: Mapped[str] = mapped_column(String(16), default=JobState.QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    #: What the last failed attempt said (no secrets: the handler's own message).
    last_error: Mapped[str | None] = mapped_column(Text)
    #: "Rendering charts 3 of 12": what the job is doing now, for the progress bar.
    progress_text: Mapped[str | None] = mapped_column(String(200))
    progress_done: Mapped[int] = mapped_column(Integer, default=0)
    progress_total: Mapped[int] = mapped_column(Integer, default=0)
    #: The worker that claimed the current attempt (WorkerBeat.id).
    worker_id: Mapped[str | None] = mapped_column(String(120))
    #: What the job answered: small JSON (a chart spec, counts); files go to JobFile.
    result: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = created_at_column()
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    @property
    def job_state(self) -> JobState:
        return JobState(self.state)

    @property
    def refusal(self) -> dict:
        """Why a handler refused the job (status, detail), or {} (docs/jobs.md)."""
        return (self.result or {}).get("error") or {}

    @property
    def error_in_words(self) -> str:
        """What the person who started a dead job reads: a refusal's own words, or
        that it failed, never the exception text kept in ``last_error``."""
        return self.refusal.get("detail") or f"It could not be made. {FAILED_IN_WORDS}"


class JobFile(db.Model):
    """A file a job made (a dashboard's PDF), in the database so web and worker may run
    on different machines; it expires."""

    __tablename__ = "job_files"

    job_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
    )
    filename: Mapped[str] = mapped_column(String(200))
    media_type: Mapped[str] = mapped_column(String(100))
    content: Mapped[bytes] = mapped_column(LargeBinary)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class WorkerBeat(db.Model):
    """A worker process says it is alive every few seconds (``/readyz``, System page)."""

    __tablename__ = "job_workers"

    #: host:pid:random, unique per worker process.
    id: Mapped[str] = mapped_column(String(120), primary_key=True)
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int] = mapped_column(Integer)
    queues: Mapped[str] = mapped_column(String(200))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class ScheduleRun(db.Model):
    """One period of one schedule, claimed by the scheduler that inserted it first: the
    primary key is what stops two schedulers firing the same period twice."""

    __tablename__ = "job_schedule_runs"

    schedule: Mapped[str] = mapped_column(String(80), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(UTCDateTime(), primary_key=True)
    job_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"))
    claimed_by: Mapped[str] = mapped_column(String(120))
    claimed_at: Mapped[datetime] = created_at_column()
