"""Dashboard pages (HTMX + Plotly): the list, one dashboard's grid, widget partials,
the widget form with its preview, and the owner's controls.

Views run gate -> load -> act -> render over the same service functions and input
models as the JSON API. Each route declares ``dashboard.read`` or ``dashboard.edit``;
:func:`service.load_dashboard` applies that action's object rule (someone's private
dashboard is a 404, another's shared one a 403 to change). Every form posts and
redirects without JavaScript; HTMX swaps the parts that change (a widget body, a card
after a span toggle, the preview).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from pydantic import Field

from workspace.analytics.dashboards import pdf_charts, ranges, service, widget_form, widgets
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.models import Dashboard, Visibility, Widget
from workspace.analytics.dashboards.query import DashboardQuery, specs
from workspace.analytics.dashboards.schemas import (
    DashboardCreate,
    DashboardSearch,
    MoveForm,
    OrderForm,
    ViewFilterQuery,
    ViewForm,
    ViewQuery,
)
from workspace.auth.guards import page
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import QueryModel, field_errors, parse_form, parse_query
from workspace.security.permissions import Access, can_object
from workspace.types import utcnow

bp = Blueprint("dashboards_pages", __name__, url_prefix="/o/<org>/dashboards")


def _view_filter() -> str | None:
    """The ephemeral view filter: ``?filter=`` on a GET, the grid form's hidden
    ``view_filter`` on a POST (so an owner's action keeps the view they had)."""
    if request.method == "GET":
        return parse_query(ViewFilterQuery).filter or None
    return parse_form(ViewForm).view_filter


def _view_range() -> ranges.DateRange | None:
    """This view's date range on a GET (``?range=``, ``from``, ``to``; a refused one
    is a 400 naming the field); None: the dashboard's (docs/dashboards.md#time)."""
    if request.method != "GET":
        return None
    return ranges.view_range(parse_query(ViewQuery))


def _back(
    org: str, dashboard: Dashboard, view_filter: str | None = None, card: uuid.UUID | None = None
) -> Response:
    """The dashboard again; with ``card``, at that card, whose menu the page focuses
    (dashboards.js), so a keyboard goes on from where it acted."""
    target = url_for(".show", org=org, dashboard_id=dashboard.id, filter=view_filter)
    return redirect(f"{target}#widget-{card}" if card else target, 303)


def _render_index(
    access: Access,
    search: str | None = None,
    *,
    typed: Mapping[str, str] | None = None,
    search_error: str | None = None,
    form: Mapping[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
):
    """The list (``search``: part of a name) with the form to start a new dashboard.
    ``typed`` is a refused search's query string as sent, kept in its box."""
    return render_template(
        "dashboards/index.html",
        dashboards=service.dashboard_summaries(access.org.id, access.account.id, search),
        search=search or "",
        typed=typed or {},
        search_error=search_error,
        can_create=can_object(access, None, "dashboard.create"),
        form=form or {},
        errors=errors or {},
        nav_active="dashboards",
    ), status


def _search_refused(access: Access, error: ServiceError):
    """Every dashboard, and the search the model refused kept in its box to be
    shortened (test_canvas.py test_search_too_long_is_refused_by_the_field): no model
    gives it back, so the query string goes to the page as a whole."""
    return _render_index(
        access, typed=request.args, search_error=field_errors(error).get("q"), status=400
    )


@bp.get("")
@page(action="analytics.read", form=DashboardSearch, invalid=_search_refused)
def index(access: Access, form: DashboardSearch):
    """My dashboards and the workspace's (``?q=`` searches their names), with a form
    to start a new one."""
    return _render_index(access, form.q)


def _create_refused(access: Access, error: ServiceError):
    # A refusal by the model or the service (a PQL error) is a 400 on the page.
    return _render_index(access, form=request.form, errors=field_errors(error), status=400)


@bp.post("")
@page(action="dashboard.create", form=DashboardCreate, invalid=_create_refused)
def create(org: str, access: Access, form: DashboardCreate):
    dashboard = service.create_dashboard(
        access.org, access.account.id, form.name, form.pql_filter, _saved_range(form)
    )
    return redirect(url_for(".show", org=org, dashboard_id=dashboard.id), 303)


@bp.post("/<uuid:dashboard_id>/duplicate")
@page(action="dashboard.create")
def duplicate(org: str, dashboard_id: uuid.UUID, access: Access):
    """A private copy of a dashboard the caller can read; opens the copy."""
    source = service.load_dashboard(access, dashboard_id, "dashboard.read")
    copy = service.duplicate_dashboard(source, access.org, access.account.id)
    return redirect(url_for(".show", org=org, dashboard_id=copy.id), 303)


def _saved_range(form: DashboardCreate) -> ranges.DateRange:
    """The settings form's range: its choice says which of its fields count (days
    left in From/To while a preset or "None" is chosen are not a custom range)."""
    if form.range_preset in (None, "none"):
        return ranges.DateRange()
    if form.range_preset == "custom":  # refused without a day (ranges.check)
        return ranges.check("custom", form.range_from, form.range_to)
    return ranges.DateRange(form.range_preset)


def _render_show(
    access: Access,
    dashboard: Dashboard,
    view_range: ranges.DateRange | None = None,
    range_error: dict[str, str] | None = None,
    **extra: Any,
) -> str:
    """The grid; its cards' bodies come in the next request (:func:`bodies`). The filter
    layers are compiled here only to say whether they are broken."""
    query = DashboardQuery.of(access, dashboard, _view_filter(), view_range)
    can_edit = can_object(access, dashboard, "dashboard.edit")
    return render_template(
        "dashboards/show.html",
        dashboard=dashboard,
        can_edit=can_edit,
        can_duplicate=can_object(access, dashboard, "dashboard.create"),
        view_filter=query.view_filter,
        filter_error=query.filter_error,
        view_range=view_range,
        range_error=range_error,
        range_args=view_range.query() if view_range is not None else {},
        saved_range=ranges.DateRange.of(dashboard),
        range_options=list(ranges.PRESET_WORDS.items()),
        pdf_available=pdf_charts.pdf_available(),
        delete_question=service.delete_question(dashboard, access.account.id) if can_edit else "",
        nav_active="dashboards",
        **extra,
    )


def _range_refused(access: Access, dashboard_id: uuid.UUID, error: ServiceError):
    """A view range that cannot be: said on the range control (a 400), the saved range
    shown. Loaded with the route's action: an outsider's refusal stays a 404."""
    dashboard = service.load_dashboard(access, dashboard_id)
    # The control shows what was asked, to correct, not the saved range it fell back to.
    typed = parse_query(TypedRange).model_dump(by_alias=True)
    return _render_show(access, dashboard, range_error=field_errors(error), range_typed=typed), 400


class TypedRange(QueryModel):
    """A refused view range as it was typed: text, shown again in the control."""

    range: str = Field("", max_length=2000)
    from_: str = Field("", alias="from", max_length=2000)
    to: str = Field("", max_length=2000)


@bp.get("/<uuid:dashboard_id>")
@page(action="dashboard.read", form=ViewQuery, invalid=_range_refused)
def show(org: str, dashboard_id: uuid.UUID, access: Access, form: ViewQuery):
    """The grid; each card fetches its own body. ``?filter=`` narrows this view only,
    ``?range=`` (``from``, ``to``) sets its date range."""
    dashboard = service.load_dashboard(access, dashboard_id)
    return _render_show(access, dashboard, ranges.view_range(form))


@bp.get("/<uuid:dashboard_id>/widgets/<uuid:widget_id>")
@page(action="dashboard.read")
def widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    """One widget's body, computed live (the HTMX partial each card loads)."""
    dashboard = service.load_dashboard(access, dashboard_id)
    item = service.get_widget(dashboard, widget_id)
    query = DashboardQuery.of(access, dashboard, _view_filter(), _view_range())
    (view,) = query.views([WidgetSpec.of(item)], linked=True)
    return render_template("dashboards/_widget_body.html", view=view, mode="page")


@bp.get("/<uuid:dashboard_id>/bodies")
@page(action="dashboard.read")
def bodies(org: str, dashboard_id: uuid.UUID, access: Access):
    """Every widget body in one response (out-of-band swaps into their cards): the
    page computes the dashboard once, sharing statements across widgets."""
    dashboard = service.load_dashboard(access, dashboard_id)
    query = DashboardQuery.of(access, dashboard, _view_filter(), _view_range())
    views = query.views(specs(dashboard), linked=True)
    return render_template("dashboards/_bodies.html", views=views, computed_at=utcnow())


# -- owner's controls -----------------------------------------------------------------


def _settings_refused(access: Access, dashboard_id: uuid.UUID, error: ServiceError):
    """The dashboard as it is saved, its settings form with what was typed and why not
    (a 400). Loaded with the route's action: an outsider's refusal stays a 403 or 404."""
    return _render_show(
        access,
        service.load_dashboard(access, dashboard_id),
        settings_errors=field_errors(error),
        settings_form=request.form,
    ), 400


@bp.post("/<uuid:dashboard_id>/settings")
@page(action="dashboard.edit", form=DashboardCreate, invalid=_settings_refused)
def settings(org: str, dashboard_id: uuid.UUID, access: Access, form: DashboardCreate):
    """Rename and refilter; the form sends both, so a name is required."""
    dashboard = service.load_dashboard(access, dashboard_id)
    service.update_dashboard(
        dashboard,
        access.org,
        access.account.id,
        name=form.name,
        pql_filter=form.pql_filter,
        date_range=_saved_range(form),
    )
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/publish")
@page(action="dashboard.edit")
def publish(org: str, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.WORKSPACE)
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/make-private")
@page(action="dashboard.edit")
def make_private(org: str, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.set_visibility(dashboard, access.account.id, Visibility.PRIVATE)
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/delete")
@page(action="dashboard.edit")
def delete(org: str, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    service.delete_dashboard(dashboard, access.account.id)
    target = url_for(".index", org=org)
    if htmx:  # the form asked through HTMX to get its hx-confirm prompt
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, 303)


@bp.post("/<uuid:dashboard_id>/widgets/order")
@page(action="dashboard.edit", form=OrderForm)
def order(org: str, dashboard_id: uuid.UUID, access: Access, form: OrderForm):
    """The grid form after a drop: hidden inputs ``widget`` in their new order."""
    dashboard = service.load_dashboard(access, dashboard_id)
    widgets.reorder_widgets(dashboard, access.account.id, form.widget)
    if htmx:
        return Response(status=204)
    return _back(org, dashboard, _view_filter())


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/move")
@page(action="dashboard.edit", form=MoveForm)
def move(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access, form: MoveForm):
    """One place earlier or later: reordering for keyboards and for pages without JS."""
    dashboard = service.load_dashboard(access, dashboard_id)
    item = service.get_widget(dashboard, widget_id)
    ids = [w.id for w in dashboard.widgets]
    index = ids.index(item.id)
    target = index - 1 if form.direction == "earlier" else index + 1
    if 0 <= target < len(ids):
        ids[index], ids[target] = ids[target], ids[index]
        widgets.reorder_widgets(dashboard, access.account.id, ids)
    return _back(org, dashboard, _view_filter(), card=item.id)


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/span")
@page(action="dashboard.edit")
def toggle_span(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    item = service.get_widget(dashboard, widget_id)
    widgets.update_widget(item, access.org, access.account.id, {"span": 1 if item.span == 2 else 2})
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


def _card_refused(error: ServiceError, org: str, dashboard_id: uuid.UUID,
                  widget_id: uuid.UUID):  # fmt: skip
    """A card's action refused (Duplicate at the widget cap): the dashboard again at
    that card, the reason flashed, not an error page with only "Go home"."""
    if error.status != 409:  # a stranger's 404, a reader's 403: the error page
        raise error
    flash(error.message, "error")
    target = url_for(".show", org=org, dashboard_id=dashboard_id)
    return redirect(f"{target}#widget-{widget_id}", 303)


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/duplicate")
@page(action="dashboard.edit", invalid=_card_refused)
def duplicate_widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    """A copy of the widget right after it (the card menu's "Duplicate")."""
    dashboard = service.load_dashboard(access, dashboard_id)
    copy = widgets.duplicate_widget(
        dashboard, service.get_widget(dashboard, widget_id), access.account.id
    )
    return _back(org, dashboard, _view_filter(), card=copy.id)


@bp.post("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/delete")
@page(action="dashboard.edit")
def remove_widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    widgets.remove_widget(dashboard, service.get_widget(dashboard, widget_id), access.account.id)
    if htmx:
        return ""
    return _back(org, dashboard, _view_filter())


# -- the widget form ------------------------------------------------------------------


def _save_widget(access: Access, dashboard: Dashboard, item: Widget | None):
    """GET and "Preview" show the form; "Save" adds or changes the widget and goes
    back to the dashboard at its card, whose menu the page focuses (as Move and
    Duplicate do): the top of a long dashboard had lost a keyboard's place."""
    form, sent, refused = widget_form.widget_input()
    if request.method == "GET" or form.action == "preview" or refused:
        status = 400 if refused else 200
        return widget_form.render_form(access, dashboard, item, sent, refused, status)
    try:
        if item is None:
            item = widgets.add_widget(dashboard, access.org, access.account.id, sent)
        else:
            widgets.update_widget(item, access.org, access.account.id, sent)
    except ServiceError as exc:
        # The 400 rolls the request back; the form shows what was typed and why not.
        return widget_form.render_form(access, dashboard, item, sent, field_errors(exc), 400)
    return _back(access.org.slug, dashboard, card=item.id)


@bp.route("/<uuid:dashboard_id>/widgets/new", methods=["GET", "POST"])
@page(action="dashboard.edit")
def new_widget(org: str, dashboard_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    return _save_widget(access, dashboard, None)


@bp.route("/<uuid:dashboard_id>/widgets/<uuid:widget_id>/edit", methods=["GET", "POST"])
@page(action="dashboard.edit")
def edit_widget(org: str, dashboard_id: uuid.UUID, widget_id: uuid.UUID, access: Access):
    dashboard = service.load_dashboard(access, dashboard_id)
    item = service.get_widget(dashboard, widget_id)
    return _save_widget(access, dashboard, item)
