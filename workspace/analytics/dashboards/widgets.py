"""Widget operations (docs/dashboards.md#widgets): add, duplicate, change, move,
remove and reorder, each under the dashboard's row lock so concurrent writes keep the
positions a dense 0..n-1 (docs/security.md#concurrency). The owner only: the routes
load the dashboard with ``dashboard.edit`` (:func:`service.load_dashboard`). Every
write records an audit event and flushes; the request commits.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import update

from workspace.analytics.dashboards import limits, ranges
from workspace.analytics.dashboards.models import SPANS, Dashboard, Widget
from workspace.analytics.dashboards.ranges import RANGE_NAMES
from workspace.analytics.dashboards.schemas import WidgetIn
from workspace.analytics.dashboards.service import (
    check_pql,
    copy_name,
    default_title,
    get_widget,
    project_in_org,
    widget_settings,
)
from workspace.analytics.scope import make_scope
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.core.events import record_event
from workspace.core.models import Org
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import db
from workspace.inputs import validate
from workspace.types import utcnow


def widget_values(
    org: Org, account_id: uuid.UUID, sent: Mapping[str, Any], current: Mapping[str, Any]
) -> dict[str, Any]:
    """A widget's settings: ``current`` (a new widget has none: the defaults) changed
    by those ``sent`` names. :class:`WidgetIn` reads them as it reads a request, the one
    validator of their shape (the API's body and the page's form arrive read already;
    the seed's and the agents' settings are read here). Then the checks that need the
    database, or that the document cannot say: a span must be finite (the model keeps
    1e400 and NaN for this refusal), a project of another org is org-wide, and the
    filter must compile."""
    given = validate(WidgetIn, dict(sent), "Some widget settings are invalid.")
    changed = given.model_dump(exclude_unset=True)
    if changed.keys() & set(ranges.FIELDS):
        # The range is one setting: sending any part of it replaces all of it.
        changed = {**dict.fromkeys(ranges.FIELDS), **changed}
    values = {**given.model_dump(), **current, **changed}
    if not math.isfinite(values["span"]):
        allowed = " or ".join(str(s) for s in SPANS)
        raise ServiceError(f"The span must be a finite number: {allowed}.", field="span")
    _time_settings(org, values, changed)
    values["project_id"] = project_in_org(org.id, values["project_id"])
    values["filter"] = check_pql(values["filter"], org, account_id, "filter")
    # A title that was its settings' default (left blank, or sent back unchanged by
    # the edit form) follows the settings: "Tasks by priority" regrouped by kind
    # becomes "Tasks by kind", not a stale title over another chart.
    was_default = bool(current) and values["title"] == default_title(
        current["metric"], current["dimension"], current["interval"]
    )
    if not values["title"] or was_default:
        values["title"] = default_title(values["metric"], values["dimension"], values["interval"])
    return values


def _time_settings(org: Org, values: dict[str, Any], changed: Mapping[str, Any]) -> None:
    """A range and a split belong to a time dimension (docs/dashboards.md#time): on one
    of the five, sending either is a 422 naming it, and those a time widget had are
    dropped when its dimension changes. A time widget's own range must be one the
    series can draw (days in bounds, in order, at most 366 buckets)."""
    if values["dimension"] not in TIME_DIMENSIONS:
        sent_range = changed.get("range_preset") not in (None, "none", "custom")
        for name in ("split", *ranges.FIELDS):
            if changed.get(name) is not None and (name != "range_preset" or sent_range):
                says = "A split" if name == "split" else "A date range"
                raise ServiceError(
                    f"{says} applies only to a time dimension (created, completed).",
                    field=RANGE_NAMES.get(name, name),
                )
            values[name] = None
        return
    chosen = ranges.check(values["range_preset"], values["range_from"], values["range_to"])
    values.update(range_preset=chosen.preset, range_from=chosen.first, range_to=chosen.last)
    ranges.check_buckets(make_scope(org), values["interval"], chosen)


def lock_dashboard(dashboard: Dashboard) -> None:
    """Serialize widget writes on the dashboard row, then re-read its widgets.

    Positions are read, then written: two requests that both read them before either
    writes hand out the same position, or renumber rows the other just deleted (a
    StaleDataError). So every widget write first takes the dashboard row's lock and
    only then reads the widgets, as they are now (docs/security.md#concurrency).

    The first statement is a write (the dashboard's ``updated_at``): on PostgreSQL
    the UPDATE takes the row lock until the request commits, and
    on SQLite it takes the database write lock before any position is read, so a
    second writer waits for the first to commit (``busy_timeout``) instead of working
    from a stale read. A dashboard deleted meanwhile is a 404.
    """
    db.session.flush()
    locked = db.session.execute(
        update(Dashboard)
        .where(Dashboard.id == dashboard.id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if locked.rowcount == 0:
        raise NotFoundError("No such dashboard.")
    # What this session read before the lock may be stale: read it again.
    for widget in list(dashboard.__dict__.get("widgets", ())):
        db.session.expire(widget)
    db.session.expire(dashboard)


def _locked_widget(dashboard: Dashboard, widget: Widget) -> Widget:
    """``widget`` after :func:`lock_dashboard`; removed by another request: a 404."""
    widget_id = widget.id  # read before the lock expires it
    lock_dashboard(dashboard)
    return get_widget(dashboard, widget_id)


def add_widget(
    dashboard: Dashboard, org: Org, actor_id: uuid.UUID, raw: Mapping[str, Any]
) -> Widget:
    """Appended after the last widget (a 409 past ``DASHBOARD_MAX_WIDGETS``)."""
    values = widget_values(org, actor_id, raw, {})
    lock_dashboard(dashboard)
    limits.check_room(dashboard)
    widget = Widget(dashboard_id=dashboard.id, position=len(dashboard.widgets), **values)
    dashboard.widgets.append(widget)
    db.session.flush()
    _widget_event("dashboard.widget_added", widget, actor_id)
    return widget


def duplicate_widget(dashboard: Dashboard, widget: Widget, actor_id: uuid.UUID) -> Widget:
    """A copy of ``widget`` placed right after it (the widgets after it move one on)."""
    widget = _locked_widget(dashboard, widget)
    limits.check_room(dashboard)
    copy = Widget(dashboard_id=dashboard.id, **widget_settings(widget))
    copy.title = copy_name(widget.title)
    widgets = list(dashboard.widgets)
    widgets.insert(widgets.index(widget) + 1, copy)
    dashboard.widgets.append(copy)
    _place(dashboard, widgets)
    db.session.flush()
    _widget_event("dashboard.widget_added", copy, actor_id, duplicated_from=str(widget.id))
    return copy


def update_widget(
    widget: Widget,
    org: Org,
    actor_id: uuid.UUID,
    raw: Mapping[str, Any],
    position: int | None = None,
) -> Widget:
    """Settings from ``raw``; with ``position``, also moved there (past the end: last)."""
    widget = _locked_widget(widget.dashboard, widget)
    values = widget_values(org, actor_id, raw, widget_settings(widget))
    for key, value in values.items():
        setattr(widget, key, value)
    moved: dict[str, Any] = {}
    if position is not None:
        dashboard = widget.dashboard
        others = [w for w in dashboard.widgets if w.id != widget.id]
        others.insert(min(position, len(others)), widget)
        _place(dashboard, others)
        moved = {"position": widget.position}
    _widget_event("dashboard.widget_updated", widget, actor_id, **moved)
    db.session.flush()
    return widget


def remove_widget(dashboard: Dashboard, widget: Widget, actor_id: uuid.UUID) -> None:
    widget = _locked_widget(dashboard, widget)
    dashboard.widgets.remove(widget)
    _renumber(dashboard.widgets)
    _widget_event("dashboard.widget_removed", widget, actor_id, dashboard=dashboard)
    db.session.flush()


def reorder_widgets(
    dashboard: Dashboard, actor_id: uuid.UUID, ordered_ids: list[uuid.UUID]
) -> list[Widget]:
    """Widgets in the given order; ids left out keep their relative order after the
    named ones (a stale browser tab cannot lose a widget); unknown ids are a 400."""
    lock_dashboard(dashboard)
    by_id = {w.id: w for w in dashboard.widgets}
    unknown = [str(i) for i in ordered_ids if i not in by_id]
    if unknown:
        raise ServiceError(
            f"These widgets are not on this dashboard: {', '.join(unknown)}. Reload the page.",
            field="widget_ids",
        )
    seen: list[uuid.UUID] = list(dict.fromkeys(ordered_ids))
    rest = [w.id for w in dashboard.widgets if w.id not in seen]
    widgets = [by_id[i] for i in seen + rest]
    _place(dashboard, widgets)
    record_event(
        dashboard.org_id,
        "dashboard.widgets_reordered",
        actor_id=actor_id,
        subject=str(dashboard.id),
    )
    db.session.flush()
    return widgets


def _place(dashboard: Dashboard, widgets: list[Widget]) -> None:
    """Give ``dashboard``'s widgets the order of ``widgets`` (all of them, each once):
    the one way every reorder, move and duplicate writes positions (called under
    :func:`lock_dashboard`)."""
    _renumber(widgets)
    dashboard.widgets.sort(key=lambda w: w.position)


def _renumber(widgets: list[Widget]) -> None:
    """Keep positions a dense 0..n-1 sequence."""
    for index, widget in enumerate(widgets):
        widget.position = index


def _widget_event(
    kind: str,
    widget: Widget,
    actor_id: uuid.UUID,
    dashboard: Dashboard | None = None,
    **details: Any,
) -> None:
    """A widget's event in its org's log: the dashboard is the subject. ``dashboard``
    names it for a widget already taken off it."""
    dashboard = dashboard or widget.dashboard
    record_event(
        dashboard.org_id,
        kind,
        actor_id=actor_id,
        subject=str(dashboard.id),
        widget_id=str(widget.id),
        **details,
    )
