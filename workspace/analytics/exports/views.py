""" "Download PDF" on a dashboard page: start the job, then follow it where the page
is (HTMX swaps in its progress) or on the job's own page (without JavaScript)."""

from __future__ import annotations

import uuid

from flask import Blueprint, redirect, render_template, url_for

from workspace.analytics.dashboards import ranges, service
from workspace.analytics.dashboards.schemas import ViewForm
from workspace.analytics.exports import pdf_job
from workspace.auth.guards import page
from workspace.extensions import htmx
from workspace.security.permissions import Access

bp = Blueprint("exports_pages", __name__)


@bp.post("/o/<org>/dashboards/<uuid:dashboard_id>/exports")
@page(action="dashboard.read", form=ViewForm)
def start_pdf(org: str, dashboard_id: uuid.UUID, form: ViewForm, access: Access):
    """A refusal (one export already under way, over the widget cap, no Chromium) is
    the error page, which HTMX shows as the page's error message."""
    dashboard = service.load_dashboard(access, dashboard_id)
    job = pdf_job.start(access, dashboard, form.view_filter, ranges.view_range(form))
    if htmx:
        return render_template("jobs/_progress.html", job=job), 202
    return redirect(url_for("job_status_pages.job", org=org, job_id=job.id), 303)
