"""Dashboard pages (HTMX + Plotly): the list, one dashboard's grid, widget partials,
the widget form with its preview, and the owner's controls.

Views run load -> authorize -> act -> render over the same service functions as the
JSON API. Every form posts and redirects without JavaScript; HTMX swaps the parts
that change (a widget body, a card after a span toggle, the preview).
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from workspace.analytics.dashboards import compute, export, service
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.models import CHART_TYPES, Dashboard, Visibility, Widget
from workspace.analytics.dashboards.present import present
from workspace.analytics.pql import PQLError
from workspace.analytics.scope import make_scope
from workspace.auth.guards import login_required, page_access
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import db, htmx
from workspace.security.permissions import Access

bp = Blueprint("dashboards_pages", __name__, url_prefix="/o/<org>/dashboards")


def _load(org: str, dashboard_id: uuid.UUID, *, edit: bool = False) -> tuple[Access, Dashboard]:
    access = page_access(org, "analytics.read")
    load = service.get_editable if edit else service.get_readable
    return access, load(access.org.id, dashboard_id, access.account.id)


def _view_filter() -> str | None:
    """The ephemeral view filter: ``?filter=`` on a GET, the grid form's hidden
    ``view_filter`` on a POST (so an owner's action keeps the view they had)."""
    value = (
        request.args.get("filter") if request.method == "GET" else request.form.get("view_filter")
    )
    return (value or "").strip() or None


def _back(org: str, dashboard: Dashboard, view_filter: str | None = None) -> Response:
    return redirect(url_for(".show", org=org, dashboard_id=dashboard.id, filter=view_filter), 303)


@bp.get("")
@login_required
def index(org: str):
    """My dashboards and the workspace's, with a form to start a new one."""
    access = page_access(org, "analytics.read")
    return render_template(
        "dashboards/index.html",
        dashboards=service.list_dashboards(access.org.id, access.account.id),
        form={},
        error=None,
        nav_active="dashboards",
    )


@bp.post("")
@login_required
def create(org: str):
    access = page_access(org, "analytics.read")
    form = {"name": request.form.get("name", ""), "pql_filter": request.form.get("pql_filter")}
    try:
        dashboard = service.create_dashboard(
            access.org, access.account.id, form["name"], form["pql_filter"]
        )
    except ServiceError as exc:
        db.session.rollback()
        return render_template(
            "dashboards/index.html",
            dashboards=service.list_dashboards(access.org.id, access.account.id),
            form=form,
            error=exc,
            nav_active="dashboards",
        ), 400
    db.session.commit()
    return redirect(url_for(".show", org=org, dashboard_id=dashboard.id), 303)


@bp.get("/<uuid:dashboard_id>")
@login_required
def show(org: str, dashboard_id: uuid.UUID):
    """The grid; each card fetches its own body. ``?filter=`` narrows this view only."""
    access, dashboard = _load(org, dashboard_id)
    view_filter = _view_filter()
    filter_error = None
    try:
        compute.layer_conditions(
            make_scope(access.org), access.account.id, dashboard.pql_filter, view_filter
        )
    except PQLError as exc:
        filter_error = exc
    return render_template(
        "dashboards/show.html",
        dashboard=dashboard,
        can_edit=service.can_edit(dashboard, access.account.id),
        view_filter=view_filter,
        filter_error=filter_error,
        pdf_available=export.pdf_available(),
        nav_active="dashboards",
    )


@bp.get("/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@login_required
def widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    """One widget's body, computed live (the HTMX partial each card loads)."""
    access, dashboard = _load(org, dashboard_id)
    item = service.get_widget(dashboard, widget_id)
    view = _compute_one(access, dashboard, WidgetSpec.of(item), _view_filter())
    return render_template("dashboards/_widget_body.html", view=view, mode="page")


@bp.get("/<uuid:dashboard_id>/bodies")
@login_required
def bodies(org: str, dashboard_id: uuid.UUID):
    """Every widget body in one response (out-of-band swaps into their cards): the
    page computes the dashboard once, sharing statements across widgets."""
    access, dashboard = _load(org, dashboard_id)
    try:
        results = compute.compute_dashboard(
            dashboard, access.org, access.account.id, _view_filter()
        )
    except PQLError as exc:
        results = [
            compute.WidgetResult(WidgetSpec.of(w), error=exc.message) for w in dashboard.widgets
        ]
    return render_template("dashboards/_bodies.html", views=[present(r) for r in results])


def _compute_one(access: Access, dashboard: Dashboard, spec: WidgetSpec, view_filter: str | None):
    try:
        (result,) = compute.compute_widgets(
            access.org,
            [spec],
            access.account.id,
            dashboard_filter=dashboard.pql_filter,
            view_filter=view_filter,
        )
    except PQLError as exc:
        result = compute.WidgetResult(spec, error=exc.message)
    return present(result)


# -- owner's controls -----------------------------------------------------------------


@bp.post("/<uuid:dashboard_id>/settings")
@login_required
def settings(org: str, dashboard_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    try:
        service.update_dashboard(
            dashboard,
            access.org,
            access.account.id,
            name=request.form.get("name", dashboard.name),
            pql_filter=request.form.get("pql_filter"),
        )
    except ServiceError as exc:
        db.session.rollback()
        dashboard = service.get_editable(access.org.id, dashboard_id, access.account.id)
        return render_template(
            "dashboards/show.html",
            dashboard=dashboard,
            can_edit=True,
            view_filter=_view_filter(),
            filter_error=None,
            settings_error=exc,
            settings_form=request.form,
            pdf_available=export.pdf_available(),
            nav_active="dashboards",
        ), 400
    db.session.commit()
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/publish")
@login_required
def publish(org: str, dashboard_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    service.set_visibility(dashboard, access.account.id, Visibility.WORKSPACE)
    db.session.commit()
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/make-private")
@login_required
def make_private(org: str, dashboard_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    service.set_visibility(dashboard, access.account.id, Visibility.PRIVATE)
    db.session.commit()
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/delete")
@login_required
def delete(org: str, dashboard_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    service.delete_dashboard(dashboard, access.account.id)
    db.session.commit()
    target = url_for(".index", org=org)
    if htmx:  # the form asked through HTMX to get its hx-confirm prompt
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, 303)


@bp.post("/<uuid:dashboard_id>/widgets/order")
@login_required
def order(org: str, dashboard_id: uuid.UUID):
    """The grid form after a drop: hidden inputs ``widget`` in their new order."""
    access, dashboard = _load(org, dashboard_id, edit=True)
    ids = []
    for value in request.form.getlist("widget"):
        try:
            ids.append(uuid.UUID(value))
        except ValueError:
            continue
    service.reorder_widgets(dashboard, access.account.id, ids)
    db.session.commit()
    if htmx:
        return Response(status=204)
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/move")
@login_required
def move(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    """One place earlier or later: reordering for keyboards and for pages without JS."""
    access, dashboard = _load(org, dashboard_id, edit=True)
    item = service.get_widget(dashboard, widget_id)
    ids = [w.id for w in dashboard.widgets]
    index = ids.index(item.id)
    target = index - 1 if request.form.get("direction") == "earlier" else index + 1
    if 0 <= target < len(ids):
        ids[index], ids[target] = ids[target], ids[index]
        service.reorder_widgets(dashboard, access.account.id, ids)
        db.session.commit()
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/span")
@login_required
def toggle_span(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    item = service.get_widget(dashboard, widget_id)
    service.update_widget(item, access.org, access.account.id, {"span": 1 if item.span == 2 else 2})
    db.session.commit()
    if htmx:
        return render_template(
            "dashboards/_card.html",
            dashboard=dashboard,
            widget=item,
            can_edit=True,
            view_filter=_view_filter(),
            filter_error=None,
        )
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/delete")
@login_required
def remove_widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    service.remove_widget(dashboard, service.get_widget(dashboard, widget_id), access.account.id)
    db.session.commit()
    if htmx:
        return ""
    return _back(org, dashboard, _view_filter())


# -- the widget form ------------------------------------------------------------------


def _form_values() -> dict[str, Any]:
    return {k: request.values.get(k) for k in service.WIDGET_FIELDS if k in request.values}


def _render_form(
    access: Access, dashboard: Dashboard, widget: Widget | None, raw: dict, status=200
):
    """The form with its preview: settings as they would be saved, or the PQL error."""
    current = service.widget_settings(widget) if widget else {}
    error = None
    try:
        values = service.widget_values(access.org, access.account.id, raw, current)
    except PQLError as exc:
        error = exc
        values = service.widget_values(
            access.org, access.account.id, {**raw, "filter": None}, current
        )
    preview = None
    if error is None:
        spec = WidgetSpec(
            key="preview",
            title=values["title"],
            chart_type=values["chart_type"],
            metric=values["metric"],
            dimension=values["dimension"],
            project_id=values["project_id"],
            filter=values["filter"],
            span=values["span"],
        )
        preview = _compute_one(access, dashboard, spec, None)
    # The form shows what was typed (a blank title keeps its placeholder).
    shown = {**values, "title": raw.get("title", current.get("title", ""))}
    shown["filter"] = raw.get("filter", current.get("filter")) or ""
    context = {
        "dashboard": dashboard,
        "widget": widget,
        "values": shown,
        "default_title": service.default_title(values["metric"], values["dimension"]),
        "error": error,
        "preview": preview,
        "chart_types": CHART_TYPES,
        "project_options": [(str(p.id), p.name) for p in projects.list_projects(access.org.id)],
        "nav_active": "dashboards",
    }
    if htmx and request.method == "GET":
        return render_template("dashboards/_preview.html", **context)
    return render_template("dashboards/widget_form.html", **context), status


@bp.route("/<uuid:dashboard_id>/widgets/new", methods=["GET", "POST"])
@login_required
def new_widget(org: str, dashboard_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    raw = _form_values()
    if request.method == "GET" or request.form.get("action") == "preview":
        return _render_form(access, dashboard, None, raw)
    try:
        service.add_widget(dashboard, access.org, access.account.id, raw)
    except ServiceError:
        db.session.rollback()
        dashboard = service.get_editable(access.org.id, dashboard_id, access.account.id)
        return _render_form(access, dashboard, None, raw, 400)
    db.session.commit()
    return _back(org, dashboard)


@bp.route("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/edit", methods=["GET", "POST"])
@login_required
def edit_widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID):
    access, dashboard = _load(org, dashboard_id, edit=True)
    item = service.get_widget(dashboard, widget_id)
    raw = _form_values()
    if request.method == "GET" or request.form.get("action") == "preview":
        return _render_form(access, dashboard, item, raw)
    try:
        service.update_widget(item, access.org, access.account.id, raw)
    except ServiceError:
        db.session.rollback()
        dashboard = service.get_editable(access.org.id, dashboard_id, access.account.id)
        item = service.get_widget(dashboard, widget_id)
        return _render_form(access, dashboard, item, raw, 400)
    db.session.commit()
    return _back(org, dashboard)
