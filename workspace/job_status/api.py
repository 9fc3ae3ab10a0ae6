"""A job over the JSON API: its state and progress, then its file."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.job_status.loading import download, load_job
from workspace.jobs import service as jobs
from workspace.jobs.schemas import JobOut
from workspace.security.permissions import Access

bp = api_blueprint("job_status_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "jobs"


@bp.get("/jobs/<uuid:job_id>")
@operation("A job you started: its state, progress and result", tag=TAG, response=JobOut,
           action="job.read")  # fmt: skip
def read_job(job_id: uuid.UUID, access: Access):
    return JobOut.of(load_job(access, job_id))


@bp.get("/jobs/<uuid:job_id>/file")
@operation(
    "The file a finished job made (a dashboard's PDF), for an hour after it was made",
    tag=TAG,
    media_type="application/octet-stream",
    # 409 while the job runs: its file is not made yet.
    errors=(400, 401, 403, 404, 409),
    action="job.read",
)
def job_file(job_id: uuid.UUID, access: Access):
    file = jobs.job_file(load_job(access, job_id))
    return download(file)
