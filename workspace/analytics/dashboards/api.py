"""The dashboards JSON API (DESIGN §3): bearer token, or the session for GET.

Every view: access (another org is a 404), load the dashboard (a private one of
someone else is a 404), the owner check for writes (403), one service call, commit.
"""

from __future__ import annotations

import uuid

from flask import Response

from workspace.analytics.dashboards import compute, export, service
from workspace.analytics.dashboards.models import Dashboard, Visibility
from workspace.analytics.dashboards.present import present
from workspace.analytics.dashboards.schemas import (
    ComputeOut,
    DashboardCreate,
    DashboardOut,
    DashboardPatch,
    ViewQuery,
    WidgetIn,
    WidgetOrder,
    WidgetOut,
)
from workspace.api import api_access, operation
from workspace.api.blueprints import api_blueprint
from workspace.extensions import db
from workspace.security.permissions import Access, require

bp = api_blueprint("dashboards_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "dashboards"
WRITE_ERRORS = (400, 401, 403, 404)


def _access(org_id: uuid.UUID) -> Access:
    access = api_access(org_id)
    require(access, "analytics.read")
    return access


def _readable(org_id: uuid.UUID, dashboard_id: uuid.UUID) -> tuple[Access, Dashboard]:
    access = _access(org_id)
    return access, service.get_readable(access.org.id, dashboard_id, access.account.id)


def _editable(org_id: uuid.UUID, dashboard_id: uuid.UUID) -> tuple[Access, Dashboard]:
    access = _access(org_id)
    return access, service.get_editable(access.org.id, dashboard_id, access.account.id)


@bp.get("/dashboards")
@operation("List my dashboards and the workspace's", tag=TAG, response=list[DashboardOut])
def list_dashboards(org_id: uuid.UUID):
    access = _access(org_id)
    rows = service.list_dashboards(access.org.id, access.account.id)
    return [DashboardOut.model_validate(d) for d in rows]


@bp.post("/dashboards")
@operation(
    "Create a dashboard (private and empty)",
    tag=TAG,
    body=DashboardCreate,
    response=DashboardOut,
    status=201,
)
def create_dashboard(org_id: uuid.UUID, body: DashboardCreate):
    access = _access(org_id)
    dashboard = service.create_dashboard(access.org, access.account.id, body.name, body.pql_filter)
    db.session.commit()
    return DashboardOut.model_validate(dashboard)


@bp.get("/dashboards/<uuid:dashboard_id>")
@operation("Read a dashboard and its widgets", tag=TAG, response=DashboardOut)
def read_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID):
    _, dashboard = _readable(org_id, dashboard_id)
    return DashboardOut.model_validate(dashboard)


@bp.patch("/dashboards/<uuid:dashboard_id>")
@operation(
    "Rename a dashboard or set, change or clear its PQL filter",
    tag=TAG,
    body=DashboardPatch,
    response=DashboardOut,
    errors=WRITE_ERRORS,
)
def update_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, body: DashboardPatch):
    access, dashboard = _editable(org_id, dashboard_id)
    changes = {k: getattr(body, k) for k in body.model_fields_set}
    service.update_dashboard(dashboard, access.org, access.account.id, **changes)
    db.session.commit()
    return DashboardOut.model_validate(dashboard)


@bp.delete("/dashboards/<uuid:dashboard_id>")
@operation("Delete a dashboard", tag=TAG, status=204, errors=WRITE_ERRORS)
def delete_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID):
    access, dashboard = _editable(org_id, dashboard_id)
    service.delete_dashboard(dashboard, access.account.id)
    db.session.commit()


@bp.post("/dashboards/<uuid:dashboard_id>/publish")
@operation(
    "Let every org member read the dashboard", tag=TAG, response=DashboardOut, errors=WRITE_ERRORS
)
def publish(org_id: uuid.UUID, dashboard_id: uuid.UUID):
    access, dashboard = _editable(org_id, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.WORKSPACE)
    db.session.commit()
    return DashboardOut.model_validate(dashboard)


@bp.post("/dashboards/<uuid:dashboard_id>/make-private")
@operation(
    "Make the dashboard visible to its owner only",
    tag=TAG,
    response=DashboardOut,
    errors=WRITE_ERRORS,
)
def make_private(org_id: uuid.UUID, dashboard_id: uuid.UUID):
    access, dashboard = _editable(org_id, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.PRIVATE)
    db.session.commit()
    return DashboardOut.model_validate(dashboard)


@bp.post("/dashboards/<uuid:dashboard_id>/widgets")
@operation(
    "Add a widget after the last one",
    tag=TAG,
    body=WidgetIn,
    response=WidgetOut,
    status=201,
    errors=WRITE_ERRORS,
)
def add_widget(org_id: uuid.UUID, dashboard_id: uuid.UUID, body: WidgetIn):
    access, dashboard = _editable(org_id, dashboard_id)
    raw = {k: getattr(body, k) for k in body.model_fields_set}
    widget = service.add_widget(dashboard, access.org, access.account.id, raw)
    db.session.commit()
    return WidgetOut.model_validate(widget)


@bp.patch("/dashboards/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@operation("Change a widget", tag=TAG, body=WidgetIn, response=WidgetOut, errors=WRITE_ERRORS)
def update_widget(org_id: uuid.UUID, dashboard_id: uuid.UUID, widget_id: uuid.UUID, body: WidgetIn):
    access, dashboard = _editable(org_id, dashboard_id)
    widget = service.get_widget(dashboard, widget_id)
    raw = {k: getattr(body, k) for k in body.model_fields_set}
    service.update_widget(widget, access.org, access.account.id, raw)
    db.session.commit()
    return WidgetOut.model_validate(widget)


@bp.delete("/dashboards/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@operation("Remove a widget", tag=TAG, status=204, errors=WRITE_ERRORS)
def remove_widget(org_id: uuid.UUID, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    access, dashboard = _editable(org_id, dashboard_id)
    widget = service.get_widget(dashboard, widget_id)
    service.remove_widget(dashboard, widget, access.account.id)
    db.session.commit()


@bp.post("/dashboards/<uuid:dashboard_id>/widgets/order")
@operation(
    "Put the widgets in this order",
    tag=TAG,
    body=WidgetOrder,
    response=list[WidgetOut],
    errors=WRITE_ERRORS,
)
def reorder_widgets(org_id: uuid.UUID, dashboard_id: uuid.UUID, body: WidgetOrder):
    access, dashboard = _editable(org_id, dashboard_id)
    widgets = service.reorder_widgets(dashboard, access.account.id, body.widget_ids)
    db.session.commit()
    return [WidgetOut.model_validate(w) for w in widgets]


@bp.get("/dashboards/<uuid:dashboard_id>/compute")
@operation(
    "Every widget's points, largest first; optional ephemeral PQL filter",
    tag=TAG,
    query=ViewQuery,
    response=ComputeOut,
)
def compute_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, query: ViewQuery):
    access, dashboard = _readable(org_id, dashboard_id)
    results = compute.compute_dashboard(dashboard, access.org, access.account.id, query.filter)
    return ComputeOut.model_validate(
        {
            "dashboard_id": dashboard.id,
            "filter": query.filter or None,
            "widgets": [r.as_dict() for r in results],
        }
    )


def _views(access: Access, dashboard: Dashboard, view_filter: str | None):
    results = compute.compute_dashboard(dashboard, access.org, access.account.id, view_filter)
    return [present(r) for r in results]


@bp.get("/dashboards/<uuid:dashboard_id>/export.html")
@operation(
    "A self-contained printable page of the dashboard (opens the print dialog)",
    tag=TAG,
    query=ViewQuery,
    media_type="text/html",
)
def export_html(org_id: uuid.UUID, dashboard_id: uuid.UUID, query: ViewQuery):
    access, dashboard = _readable(org_id, dashboard_id)
    html = export.render_html(dashboard, _views(access, dashboard, query.filter), query.filter)
    return Response(html, mimetype="text/html")


@bp.get("/dashboards/<uuid:dashboard_id>/export.pdf")
@operation(
    "The dashboard as a PDF with static charts (503 when the server has no Chromium)",
    tag=TAG,
    query=ViewQuery,
    media_type="application/pdf",
    errors=(400, 401, 404, 503),
)
def export_pdf(org_id: uuid.UUID, dashboard_id: uuid.UUID, query: ViewQuery):
    access, dashboard = _readable(org_id, dashboard_id)
    pdf = export.render_pdf(dashboard, _views(access, dashboard, query.filter), query.filter)
    filename = "".join(c if c.isalnum() else "-" for c in dashboard.name.lower()).strip("-")
    return Response(
        pdf,
        mimetype="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{filename or "dashboard"}.pdf"'},
    )
