"""A job's page: what it is doing now, refreshed by HTMX every second while it runs
(without JavaScript, by the page itself every two seconds), then its file."""

from __future__ import annotations

import uuid

from flask import Blueprint

from workspace.auth.guards import page, render
from workspace.job_status.loading import download, load_job
from workspace.jobs import service as jobs
from workspace.security.permissions import Access

bp = Blueprint("job_status_pages", __name__)


@bp.get("/o/<org>/jobs/<uuid:job_id>")
@page(action="job.read", block="job_progress")
def job(job_id: uuid.UUID, access: Access):
    """The whole page, or for HTMX's poll its progress block alone."""
    return render("jobs/show.html", job=load_job(access, job_id))


@bp.get("/o/<org>/jobs/<uuid:job_id>/file")
@page(action="job.read")
def job_file(job_id: uuid.UUID, access: Access):
    file = jobs.job_file(load_job(access, job_id))
    return download(file)
