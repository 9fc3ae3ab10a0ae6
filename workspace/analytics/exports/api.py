"""The dashboard PDF over the JSON API: as a job (``POST …/exports``: 202 and the job's
``Location``) or at once for a caller that waits (``GET …/export.pdf``)."""

from __future__ import annotations

import uuid

from flask import Response, json, url_for

from workspace.analytics.dashboards import export, ranges, service
from workspace.analytics.dashboards.schemas import ViewQuery
from workspace.analytics.exports import pdf_job
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.jobs import service as jobs
from workspace.jobs.models import JobState
from workspace.jobs.schemas import JobOut
from workspace.security.permissions import Access

bp = api_blueprint("exports_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "dashboards"
ERRORS = (400, 401, 404, 409, 429, 503)


@bp.get("/dashboards/<uuid:dashboard_id>/export.pdf")
@operation(
    "The dashboard as a PDF with static charts, for a caller that waits (503 when the "
    "server has no Chromium)",
    tag=TAG,
    query=ViewQuery,
    media_type="application/pdf",
    errors=ERRORS,
    action="dashboard.read",
)
def export_pdf(dashboard_id: uuid.UUID, access: Access, query: ViewQuery):
    """The same job as ``POST …/exports``, waited for. At most
    EXPORT_MAX_IN_FLIGHT_PER_MEMBER (1) exports of one member and
    EXPORT_MAX_IN_FLIGHT_PER_ORG (2) of one org run at once: past either, 429 with
    Retry-After. A dashboard over DASHBOARD_MAX_WIDGETS (30) widgets is a 409."""
    dashboard = service.load_dashboard(access, dashboard_id)
    job = pdf_job.export_now(access, dashboard, query.filter, ranges.view_range(query))
    if job.job_state is not JobState.DONE:
        raise pdf_job.failure(job)
    file = jobs.job_file(job)
    return Response(
        file.content,
        mimetype=file.media_type,
        headers={"Content-Disposition": export.attachment_disposition(dashboard.name, "pdf")},
    )


@bp.post("/dashboards/<uuid:dashboard_id>/exports")
@operation(
    "Start the dashboard's PDF as a job: 202 with the job, whose Location to follow",
    tag=TAG,
    query=ViewQuery,
    response=JobOut,
    status=202,
    errors=ERRORS,
    action="dashboard.read",
)
def start_export(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, query: ViewQuery):
    """The job runs on a worker; ``GET`` its Location for its state and progress, then
    its ``file_url`` for the PDF (kept for an hour)."""
    dashboard = service.load_dashboard(access, dashboard_id)
    job = pdf_job.start(access, dashboard, query.filter, ranges.view_range(query))
    location = url_for("job_status_api.read_job", org_id=org_id, job_id=job.id)
    body = JobOut.of(job).model_dump(mode="json")
    return Response(json.dumps(body), status=202, mimetype="application/json",
                    headers={"Location": location})  # fmt: skip
