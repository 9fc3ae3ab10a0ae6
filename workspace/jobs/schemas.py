"""A job as the JSON API shows it (docs/api.md#jobs)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from flask import url_for

from workspace.inputs import OutputModel
from workspace.jobs.models import Job, JobState


class JobProgress(OutputModel):
    done: int
    total: int
    #: What the job is doing now, e.g. "Drawing charts 5 of 12".
    text: str | None


class JobError(OutputModel):
    #: The HTTP status the same refusal has elsewhere in the API (503 for a failure).
    status: int
    detail: str


class JobOut(OutputModel):
    id: uuid.UUID
    kind: str
    state: Literal["queued", "running", "retrying", "done", "dead"]
    attempts: int
    max_attempts: int
    progress: JobProgress
    #: Why the job ended without its result (``dead``); null otherwise.
    error: JobError | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    #: Where the job's file is, once it is ``done`` and made one.
    file_url: str | None
    #: What a ``done`` job answered, for a kind that answers with data (``ai.ask``: the
    #: chart, as ``POST …/analytics/ask`` answers it); null otherwise.
    result: dict[str, Any] | None

    @classmethod
    def of(cls, job: Job) -> JobOut:
        error = None
        if job.job_state is JobState.DEAD:
            error = JobError(status=int(job.refusal.get("status", 503)), detail=job.error_in_words)
        has_file = job.job_state is JobState.DONE and bool((job.result or {}).get("filename"))
        return cls(
            id=job.id,
            kind=job.kind,
            state=job.state,
            attempts=job.attempts,
            max_attempts=job.max_attempts,
            progress=JobProgress(
                done=job.progress_done, total=job.progress_total, text=job.progress_text
            ),
            error=error,
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
            file_url=url_for("job_status_api.job_file", org_id=job.org_id, job_id=job.id)
            if has_file
            else None,
            result=(job.result or {}).get("answer") if job.job_state is JobState.DONE else None,
        )
