"""The one way a route loads a job (of this org, started by the caller) and hands out
the file it made."""

from __future__ import annotations

import uuid

from flask import Response

from workspace.jobs import service as jobs
from workspace.jobs.models import Job, JobFile
from workspace.security.permissions import Access, require_object


def load_job(access: Access, job_id: uuid.UUID) -> Job:
    """A job of this org that this caller started; anyone else's is a 404."""
    job = jobs.get_job(job_id, access.org.id)
    require_object(access, job)
    return job


def download(file: JobFile) -> Response:
    """The file as an attachment; its name is a slug the job made (no quote or CR/LF)."""
    return Response(
        file.content,
        mimetype=file.media_type,
        headers={"Content-Disposition": f'attachment; filename="{file.filename}"'},
    )
