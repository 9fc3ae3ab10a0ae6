"""Saving an ask-a-chart answer as a dashboard widget, through the dashboards service.

Imported lazily: dashboards are their own capability, and ask-a-chart works without
them (the "Save as widget" control is then simply not offered).
"""

from __future__ import annotations

import importlib.util
import uuid
from typing import Any

from workspace.core.models import Org


def available() -> bool:
    return importlib.util.find_spec("workspace.analytics.dashboards.service") is not None


def own_dashboards(org_id: uuid.UUID, account_id: uuid.UUID) -> list[Any]:
    """Dashboards the account may add widgets to (its own)."""
    if not available():
        return []
    from workspace.analytics.dashboards import service

    return [
        d for d in service.list_dashboards(org_id, account_id) if service.can_edit(d, account_id)
    ]


def answer_filter(kind: str | None, priority: str | None) -> str | None:
    """The answer's narrowing as the widget's PQL filter."""
    parts = [f"kind = {kind}" if kind else "", f"priority = {priority}" if priority else ""]
    return " AND ".join(p for p in parts if p) or None


def save_as_widget(
    org: Org,
    account_id: uuid.UUID,
    dashboard_id: uuid.UUID,
    *,
    title: str,
    metric: str,
    dimension: str,
    kind: str | None = None,
    priority: str | None = None,
    project_id: uuid.UUID | None = None,
) -> Any:
    """Append the answer's chart to one of the account's dashboards (a 404 for another's
    private dashboard, a 403 for a shared one it does not own). The caller commits."""
    from workspace.analytics.dashboards import service

    dashboard = service.get_editable(org.id, dashboard_id, account_id)
    return service.add_widget(
        dashboard,
        org,
        account_id,
        {
            "title": title,
            "chart_type": "bar",
            "metric": metric,
            "dimension": dimension,
            "project_id": str(project_id) if project_id else None,
            "filter": answer_filter(kind, priority),
        },
    )
