"""The dashboards JSON API (docs/api.md): bearer token, or the session for GET.

Every view: the gate (another org is a 404), the loader applying the route's
``dashboard.read`` / ``dashboard.edit`` object rule (someone's private dashboard is a
404, another's shared one is a 403 to change), one service call. The request commits.
"""

from __future__ import annotations

import uuid

from flask import Response

from workspace.analytics.dashboards import export, ranges, service, widgets
from workspace.analytics.dashboards.models import Visibility
from workspace.analytics.dashboards.query import DashboardQuery, printed_views, specs
from workspace.analytics.dashboards.schemas import (
    ComputeOut,
    DashboardCreate,
    DashboardOut,
    DashboardPatch,
    ViewQuery,
    WidgetIn,
    WidgetOrder,
    WidgetOut,
    WidgetPatch,
)
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access

bp = api_blueprint("dashboards_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "dashboards"
WRITE_ERRORS = (400, 401, 403, 404)
#: A write that adds widgets: 409 past DASHBOARD_MAX_WIDGETS (docs/security.md#limits).
ADD_ERRORS = (*WRITE_ERRORS, 409)


@bp.get("/dashboards")
@operation(
    "List my dashboards and the workspace's",
    tag=TAG,
    response=list[DashboardOut],
    action="analytics.read",
)
def list_dashboards(org_id: uuid.UUID, access: Access):
    rows = service.list_dashboards(access.org.id, access.account.id)
    return [DashboardOut.model_validate(d) for d in rows]


@bp.post("/dashboards")
@operation(
    "Create a dashboard (private and empty)",
    tag=TAG,
    body=DashboardCreate,
    response=DashboardOut,
    status=201,
    action="dashboard.create",
)
def create_dashboard(org_id: uuid.UUID, access: Access, body: DashboardCreate):
    chosen = ranges.DateRange(body.range_preset, body.range_from, body.range_to)
    dashboard = service.create_dashboard(
        access.org, access.account.id, body.name, body.pql_filter, chosen
    )
    return DashboardOut.model_validate(dashboard)


@bp.post("/dashboards/<uuid:dashboard_id>/duplicate")
@operation(
    "Copy a dashboard you can read (yours or a shared one) into a private one you own",
    tag=TAG,
    response=DashboardOut,
    status=201,
    errors=ADD_ERRORS,
    action="dashboard.create",
)
def duplicate_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    # Creating is the route's action (agents may not); reading the source is the
    # object rule that applies to it (someone's private dashboard is a 404).
    source = service.load_dashboard(access, dashboard_id, "dashboard.read")
    copy = service.duplicate_dashboard(source, access.org, access.account.id)
    return DashboardOut.model_validate(copy)


@bp.get("/dashboards/<uuid:dashboard_id>")
@operation(
    "Read a dashboard and its widgets", tag=TAG, response=DashboardOut, action="dashboard.read"
)
def read_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    return DashboardOut.model_validate(dashboard)


@bp.patch("/dashboards/<uuid:dashboard_id>")
@operation(
    "Rename a dashboard, set or clear its PQL filter or its date range",
    tag=TAG,
    body=DashboardPatch,
    response=DashboardOut,
    errors=WRITE_ERRORS,
    action="dashboard.edit",
)
def update_dashboard(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, body: DashboardPatch
):
    dashboard = service.load_dashboard(access, dashboard_id)
    changes = {k: getattr(body, k) for k in body.model_fields_set - set(ranges.FIELDS)}
    if body.model_fields_set & set(ranges.FIELDS):
        # The range is one setting: any part of it sent replaces all of it.
        changes["date_range"] = ranges.DateRange(body.range_preset, body.range_from, body.range_to)
    service.update_dashboard(dashboard, access.org, access.account.id, **changes)
    return DashboardOut.model_validate(dashboard)


@bp.delete("/dashboards/<uuid:dashboard_id>")
@operation("Delete a dashboard", tag=TAG, status=204, errors=WRITE_ERRORS, action="dashboard.edit")
def delete_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.delete_dashboard(dashboard, access.account.id)


@bp.post("/dashboards/<uuid:dashboard_id>/publish")
@operation(
    "Let every org member read the dashboard",
    tag=TAG,
    response=DashboardOut,
    errors=WRITE_ERRORS,
    action="dashboard.edit",
)
def publish(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.WORKSPACE)
    return DashboardOut.model_validate(dashboard)


@bp.post("/dashboards/<uuid:dashboard_id>/make-private")
@operation(
    "Make the dashboard visible to its owner only",
    tag=TAG,
    response=DashboardOut,
    errors=WRITE_ERRORS,
    action="dashboard.edit",
)
def make_private(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.PRIVATE)
    return DashboardOut.model_validate(dashboard)


@bp.post("/dashboards/<uuid:dashboard_id>/widgets")
@operation(
    "Add a widget after the last one",
    tag=TAG,
    body=WidgetIn,
    response=WidgetOut,
    status=201,
    errors=ADD_ERRORS,
    action="dashboard.edit",
)
def add_widget(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, body: WidgetIn):
    dashboard = service.load_dashboard(access, dashboard_id)
    sent = body.model_dump(exclude_unset=True)
    widget = widgets.add_widget(dashboard, access.org, access.account.id, sent)
    return WidgetOut.model_validate(widget)


@bp.patch("/dashboards/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@operation(
    "Change a widget's settings or move it (position)",
    tag=TAG,
    body=WidgetPatch,
    response=WidgetOut,
    errors=WRITE_ERRORS,
    action="dashboard.edit",
)
def update_widget(
    org_id: uuid.UUID,
    dashboard_id: uuid.UUID,
    widget_id: uuid.UUID,
    access: Access,
    body: WidgetPatch,
):
    dashboard = service.load_dashboard(access, dashboard_id)
    widget = service.get_widget(dashboard, widget_id)
    sent = body.model_dump(exclude_unset=True, exclude={"position"})
    widget = widgets.update_widget(
        widget, access.org, access.account.id, sent, position=body.position
    )
    return WidgetOut.model_validate(widget)


@bp.post("/dashboards/<uuid:dashboard_id>/widgets/<uuid:widget_id>/duplicate")
@operation(
    "Copy a widget; the copy goes right after it",
    tag=TAG,
    response=WidgetOut,
    status=201,
    errors=ADD_ERRORS,
    action="dashboard.edit",
)
def duplicate_widget(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access
):
    dashboard = service.load_dashboard(access, dashboard_id)
    widget = service.get_widget(dashboard, widget_id)
    return WidgetOut.model_validate(widgets.duplicate_widget(dashboard, widget, access.account.id))


@bp.delete("/dashboards/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@operation("Remove a widget", tag=TAG, status=204, errors=WRITE_ERRORS, action="dashboard.edit")
def remove_widget(org_id: uuid.UUID, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    widget = service.get_widget(dashboard, widget_id)
    widgets.remove_widget(dashboard, widget, access.account.id)


@bp.post("/dashboards/<uuid:dashboard_id>/widgets/order")
@operation(
    "Put the widgets in this order",
    tag=TAG,
    body=WidgetOrder,
    response=list[WidgetOut],
    errors=WRITE_ERRORS,
    action="dashboard.edit",
)
def reorder_widgets(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, body: WidgetOrder):
    dashboard = service.load_dashboard(access, dashboard_id)
    ordered = widgets.reorder_widgets(dashboard, access.account.id, body.widget_ids)
    return [WidgetOut.model_validate(w) for w in ordered]


@bp.get("/dashboards/<uuid:dashboard_id>/compute")
@operation(
    "Every widget's points (largest first; a time widget's buckets oldest first); "
    "optional ephemeral PQL filter and date range",
    tag=TAG,
    query=ViewQuery,
    response=ComputeOut,
    action="dashboard.read",
)
def compute_dashboard(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, query: ViewQuery):
    dashboard = service.load_dashboard(access, dashboard_id)
    view_range = ranges.view_range(query)
    results = DashboardQuery.of(access, dashboard, query.filter, view_range).compute(
        specs(dashboard)
    )
    return ComputeOut.model_validate(
        {
            "dashboard_id": dashboard.id,
            "filter": query.filter or None,
            "widgets": [r.as_dict() for r in results],
        }
    )


@bp.get("/dashboards/<uuid:dashboard_id>/export.html")
@operation(
    "A self-contained printable page of the dashboard (opens the print dialog)",
    tag=TAG,
    query=ViewQuery,
    media_type="text/html",
    action="dashboard.read",
)
def export_html(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, query: ViewQuery):
    dashboard = service.load_dashboard(access, dashboard_id)
    views = printed_views(access, dashboard, query.filter, ranges.view_range(query))
    html = export.render_html(dashboard, views, query.filter)
    return Response(html, mimetype="text/html")
