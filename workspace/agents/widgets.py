"""Saving an ask-a-chart answer as a dashboard widget, through the dashboards service.

The dashboard must be one the caller may change: the ``dashboard.edit`` object rule
(another's private dashboard is a 404, another's shared one a 403).
"""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from workspace.analytics.dashboards import service as dashboards
from workspace.analytics.dashboards import widgets
from workspace.analytics.dashboards.limits import max_widgets
from workspace.analytics.dashboards.models import Dashboard, Widget
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.extensions import db
from workspace.security.permissions import Access, can_object

#: The action a saved answer needs on its dashboard.
EDIT = "dashboard.edit"


def own_dashboards(access: Access) -> list[Dashboard]:
    """Dashboards the caller may add widgets to (its own)."""
    return [
        d
        for d in dashboards.list_dashboards(access.org.id, access.account.id)
        if can_object(access, d, EDIT)
    ]


def full_dashboards(listed: list[Dashboard]) -> set[uuid.UUID]:
    """Those of ``listed`` at the widget cap, in one query: the save form offers them
    disabled, where choosing one lost the answer to a "dashboard is full" refusal."""
    if not listed:
        return set()
    counted = (
        select(Widget.dashboard_id)
        .where(Widget.dashboard_id.in_([d.id for d in listed]))
        .group_by(Widget.dashboard_id)
        .having(func.count() >= max_widgets())
    )
    return set(db.session.scalars(counted))


def answer_filter(kind: str | None, priority: str | None) -> str | None:
    """The answer's narrowing as the widget's PQL filter."""
    parts = [f"kind = {kind}" if kind else "", f"priority = {priority}" if priority else ""]
    return " AND ".join(p for p in parts if p) or None


def save_as_widget(
    access: Access,
    dashboard_id: uuid.UUID,
    *,
    title: str | None,
    metric: str,
    dimension: str,
    kind: str | None = None,
    priority: str | None = None,
    project_id: uuid.UUID | None = None,
    interval: str | None = None,
    preset: str | None = None,
    split: str | None = None,
    pql: str | None = None,
) -> Widget:
    """Append the answer's chart to one of the caller's dashboards (flushed; the
    request commits). A reading over time (created or completed) keeps its
    ``interval``, range ``preset`` and ``split`` as the widget's own, drawn as an area
    as on the Custom tab (docs/dashboards.md#time); ``pql``, the reading's filter,
    narrows the widget beside ``kind`` and ``priority``."""
    dashboard = dashboards.load_dashboard(access, dashboard_id, EDIT)
    narrowing = [f for f in (answer_filter(kind, priority), pql) if f]
    over_time = {"interval": interval, "range": preset, "split": split}
    return widgets.add_widget(
        dashboard,
        access.org,
        access.account.id,
        {
            "title": title,
            "chart_type": "area" if dimension in TIME_DIMENSIONS else "bar",
            "metric": metric,
            "dimension": dimension,
            "project_id": str(project_id) if project_id else None,
            "filter": " AND ".join(f"({f})" for f in narrowing)
            if pql
            else (narrowing or [None])[0],
            **{k: v for k, v in over_time.items() if v is not None},
        },
    )
