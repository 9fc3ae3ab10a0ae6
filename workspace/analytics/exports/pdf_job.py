"""A dashboard's PDF as a job (docs/jobs.md#pdf-export): the worker computes the
widgets with the asker's permissions as they stand when it runs, draws the charts with
the Chromium it keeps warm, and stores the file in the database for an hour, so web and
worker may run on different machines.

``start`` is what "Download PDF" and ``POST …/exports`` call; ``export_now`` is the
synchronous ``GET …/export.pdf`` for scripts that wait: the same job, run in this
process on the embedded default, else waited for.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from workspace.analytics.dashboards import export, limits, ranges, service
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.query import DashboardQuery, printed_views
from workspace.core.models import Account
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.jobs import service as jobs
from workspace.jobs import waiting
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler
from workspace.security.permissions import Access, authorize_route, org_access
from workspace.transaction import commit_early

log = logging.getLogger(__name__)

KIND = "dashboard.pdf"
#: How long a finished PDF can be downloaded.
KEEP = timedelta(hours=1)
#: How long the synchronous endpoint waits for a worker before it answers 503.
WAIT_SECONDS = 120


def start(
    access: Access,
    dashboard: Dashboard,
    view_filter: str | None,
    view_range: ranges.DateRange | None = None,
) -> Job:
    """Queue the PDF of ``dashboard`` as ``access`` sees it. A member has at most
    EXPORT_MAX_IN_FLIGHT_PER_MEMBER exports queued or running, an org
    EXPORT_MAX_IN_FLIGHT_PER_ORG: past either, 429 (docs/security.md#limits)."""
    limits.check_exportable(dashboard)
    export.require_pdf()
    error = DashboardQuery.of(access, dashboard, view_filter).filter_error
    if error is not None:
        raise error  # the caller's typing, not the worker's failure
    if jobs.count_unfinished(KIND, account_id=access.account.id) >= limits.per_member():
        raise limits.member_busy()
    if jobs.count_unfinished(KIND, org_id=access.org.id) >= limits.per_org():
        raise limits.org_busy()
    return jobs.enqueue(
        KIND,
        org_id=access.org.id,
        account_id=access.account.id,
        args={
            "dashboard_id": str(dashboard.id),
            "filter": view_filter,
            # The view's date range (docs/dashboards.md#time), as its query string.
            **({"range": view_range.query()} if view_range is not None else {}),
        },
    )


def export_now(
    access: Access,
    dashboard: Dashboard,
    view_filter: str | None,
    view_range: ranges.DateRange | None = None,
) -> Job:
    """The PDF job run to its end, for a caller that waits."""
    job = start(access, dashboard, view_filter, view_range)
    commit_early("the export's job must be visible to the worker that renders it")
    return waiting.run_to_end(
        job.id,
        wait_seconds=WAIT_SECONDS,
        still_running="The PDF is still being made; ask for it again in a minute.",
    )


def failure(job: Job) -> ServiceError:
    """A finished job's refusal as the error the API answers."""
    return waiting.refusal(job, "The PDF could not be made.")


@handler(KIND, queue="exports", max_attempts=2, time_limit_ms=5 * 60_000)
def render(job: Job, progress: Progress) -> None:
    """Compute, draw, lay out, store. The asker's access is read again here: one who
    left the org, or lost the dashboard, since asking gets nothing."""
    account = db.session.get(Account, job.account_id) if job.account_id else None
    access = authorize_route(org_access(job.org_id, account), "dashboard.read", {})
    dashboard = service.load_dashboard(access, uuid.UUID(job.args["dashboard_id"]))
    view_filter = job.args.get("filter")
    limits.check_exportable(dashboard)
    total = len(dashboard.widgets)
    progress(0, total, f"Computing {total} widgets")
    # The slots also count exports that run outside this queue (another process's).
    with limits.export_slot(access.org.id, access.account.id):
        view_range = ranges.from_query(job.args["range"]) if "range" in job.args else None
        views = printed_views(access, dashboard, view_filter, view_range)
        pdf = export.render_pdf(dashboard, views, view_filter, progress)
    name = export.attachment_filename(dashboard.name, "pdf")
    jobs.save_file(job, name, "application/pdf", pdf, keep=KEEP)
    job.result = {"filename": name, "bytes": len(pdf)}
