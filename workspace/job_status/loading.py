"""The one way a route loads a job: of this org, started by the caller."""

from __future__ import annotations

import uuid

from workspace.jobs import service as jobs
from workspace.jobs.models import Job
from workspace.security.permissions import Access, require_object


def load_job(access: Access, job_id: uuid.UUID) -> Job:
    """A job of this org that this caller started; anyone else's is a 404."""
    job = jobs.get_job(job_id, access.org.id)
    require_object(access, job)
    return job
