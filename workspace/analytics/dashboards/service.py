"""Dashboard operations (docs/dashboards.md): loading, the list, the checks of a
filter and a widget's project that need the database, and creating, copying,
changing and deleting dashboards; the widget writes are
:mod:`workspace.analytics.dashboards.widgets`.

Reading: the owner sees their dashboards; any org member sees Workspace ones; a
private dashboard is a 404 to everyone but its owner, so its existence never leaks.
Writing: the owner only (403 for a member who can read it). Publishing changes who
reads, never who edits. Both rules are the object rules of ``dashboard.read`` and
``dashboard.edit`` in :mod:`workspace.security.permissions`, applied by
:func:`load_dashboard`. Every write records an audit event and flushes; the request
commits.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select

from workspace.analytics.dashboards import limits, ranges
from workspace.analytics.dashboards.models import Dashboard, Visibility, Widget
from workspace.analytics.pql import PQLError, compile_pql
from workspace.analytics.scope import make_scope
from workspace.analytics.vocabulary import METRIC_LABELS, TIME_DIMENSIONS
from workspace.core.events import record_event
from workspace.core.models import Account, Org, Project
from workspace.errors import NotFoundError
from workspace.extensions import db
from workspace.security.permissions import Access, require_object

WIDGET_FIELDS = (
    "title",
    "chart_type",
    "metric",
    "dimension",
    "project_id",
    "filter",
    "span",
    "top_n",
    "interval",
    "range_preset",
    "range_from",
    "range_to",
    "split",
)
MAX_TITLE = 200


# -- loading and permission ---------------------------------------------------------------


def list_dashboards(org_id: uuid.UUID, account_id: uuid.UUID) -> list[Dashboard]:
    """The caller's own dashboards and every Workspace one, by name."""
    return list(
        db.session.scalars(
            select(Dashboard)
            .where(
                Dashboard.org_id == org_id,
                or_(Dashboard.owner_id == account_id, Dashboard.visibility == Visibility.WORKSPACE),
            )
            .order_by(Dashboard.name, Dashboard.created_at)
        )
    )


@dataclass(frozen=True)
class DashboardSummary:
    """One row of the dashboards page: counts and names come from one SQL statement."""

    id: uuid.UUID
    name: str
    owner_id: uuid.UUID
    owner_name: str
    visibility: str
    widget_count: int
    updated_at: datetime


def _like_pattern(text: str) -> str:
    """``text`` as a literal substring for LIKE (``%`` and ``_`` match themselves)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def dashboard_summaries(
    org_id: uuid.UUID, account_id: uuid.UUID, search: str | None = None
) -> list[DashboardSummary]:
    """What :func:`list_dashboards` returns, with the owner's name and the widget count,
    optionally only names containing ``search`` (case-insensitive): one statement,
    however many dashboards (no query per row)."""
    widget_count = (
        select(func.count(Widget.id))
        .where(Widget.dashboard_id == Dashboard.id)
        .correlate(Dashboard)
        .scalar_subquery()
    )
    statement = (
        select(
            Dashboard.id,
            Dashboard.name,
            Dashboard.owner_id,
            Account.name,
            Dashboard.visibility,
            widget_count,
            Dashboard.updated_at,
        )
        .join(Account, Account.id == Dashboard.owner_id)
        .where(
            Dashboard.org_id == org_id,
            or_(Dashboard.owner_id == account_id, Dashboard.visibility == Visibility.WORKSPACE),
        )
        .order_by(Dashboard.name, Dashboard.created_at)
    )
    if search:
        statement = statement.where(
            func.lower(Dashboard.name).like(_like_pattern(search), escape="\\")
        )
    return [DashboardSummary(*row) for row in db.session.execute(statement)]


def load_dashboard(access: Access, dashboard_id: uuid.UUID, action: str | None = None) -> Dashboard:
    """The dashboard, if the route's declared action allows it (``dashboard.read``:
    someone's private one is a 404; ``dashboard.edit``: the owner only, else 403).
    ``action`` overrides the route's for a route that reads and edits different things.
    """
    dashboard = db.session.get(Dashboard, dashboard_id)
    require_object(access, dashboard, action)
    return dashboard


def get_widget(dashboard: Dashboard, widget_id: uuid.UUID) -> Widget:
    for widget in dashboard.widgets:
        if widget.id == widget_id:
            return widget
    raise NotFoundError("No such widget on this dashboard.")


def widget_settings(widget: Widget) -> dict[str, Any]:
    """A widget's settings, as :func:`widget_values` takes and returns them."""
    return {key: getattr(widget, key) for key in WIDGET_FIELDS}


# -- the checks that need the database -------------------------------------------------
#
# Everything else a request sends is checked by its input model (schemas.py) alone.


def check_pql(text: str | None, org: Org, account_id: uuid.UUID, field: str) -> str | None:
    """Blank is no filter; otherwise it must compile, else a refusal naming the line
    and column (422 on the API, 400 on a page)."""
    if text is None or not text.strip():
        return None
    try:
        compile_pql(text, org.id, account_id, scope=make_scope(org))
    except PQLError as exc:
        exc.field = field
        raise
    return text.strip()


def project_in_org(org_id: uuid.UUID, project_id: uuid.UUID | None) -> uuid.UUID | None:
    """``project_id`` if it names a project of this org, else None (org-wide): another
    org's id never leaks."""
    project = db.session.get(Project, project_id) if project_id else None
    return project_id if project is not None and project.org_id == org_id else None


def default_title(metric: str, dimension: str, interval: str = "week") -> str:
    if dimension in TIME_DIMENSIONS:
        return f"{METRIC_LABELS[metric]} {dimension} per {interval}"
    return f"{METRIC_LABELS[metric]} by {dimension}"


# -- dashboards -----------------------------------------------------------------------


def create_dashboard(
    org: Org,
    owner_id: uuid.UUID,
    name: str,
    pql_filter: str | None = None,
    date_range: ranges.DateRange = ranges.DateRange(),
) -> Dashboard:
    """A new dashboard starts private and empty (docs/dashboards.md#who-can-do-what)."""
    chosen = ranges.check(date_range.preset, date_range.first, date_range.last)
    dashboard = Dashboard(
        org_id=org.id,
        owner_id=owner_id,
        name=name,
        visibility=Visibility.PRIVATE,
        pql_filter=check_pql(pql_filter, org, owner_id, "pql_filter"),
        range_preset=chosen.preset,
        range_from=chosen.first,
        range_to=chosen.last,
    )
    db.session.add(dashboard)
    db.session.flush()
    record_event(org.id, "dashboard.created", actor_id=owner_id, subject=str(dashboard.id))
    return dashboard


def copy_name(name: str) -> str:
    """ "Copy of X", kept within the 200 characters a name may have."""
    name = f"Copy of {name}"
    return name if len(name) <= 200 else name[:199] + "…"


def duplicate_dashboard(source: Dashboard, org: Org, owner_id: uuid.UUID) -> Dashboard:
    """A private copy of ``source`` (which the caller can read: their own or a shared
    one) owned by ``owner_id``: same filter, the widgets in the same order and spans."""
    limits.check_copyable(source)
    copy = Dashboard(
        org_id=org.id,
        owner_id=owner_id,
        name=copy_name(source.name),
        visibility=Visibility.PRIVATE,
        pql_filter=source.pql_filter,
        range_preset=source.range_preset,
        range_from=source.range_from,
        range_to=source.range_to,
    )
    for index, widget in enumerate(source.widgets):
        copy.widgets.append(Widget(position=index, **widget_settings(widget)))
    db.session.add(copy)
    db.session.flush()
    record_event(
        org.id,
        "dashboard.created",
        actor_id=owner_id,
        subject=str(copy.id),
        duplicated_from=str(source.id),
    )
    return copy


_UNSET: Any = object()


def update_dashboard(
    dashboard: Dashboard,
    org: Org,
    actor_id: uuid.UUID,
    *,
    name=_UNSET,
    pql_filter=_UNSET,
    date_range=_UNSET,
) -> Dashboard:
    """Rename, set, change or clear (None or blank) the dashboard filter, and set or
    clear (an empty :class:`ranges.DateRange`) its date range. All are checked before
    any changes, so a refused update leaves the dashboard as it was."""
    changes = {}
    if name is not _UNSET:
        changes["name"] = name
    if pql_filter is not _UNSET:
        changes["pql_filter"] = check_pql(pql_filter, org, actor_id, "pql_filter")
    if date_range is not _UNSET:
        chosen = ranges.check(date_range.preset, date_range.first, date_range.last)
        changes.update(range_preset=chosen.preset, range_from=chosen.first, range_to=chosen.last)
    for key, value in changes.items():
        setattr(dashboard, key, value)
    record_event(org.id, "dashboard.updated", actor_id=actor_id, subject=str(dashboard.id))
    db.session.flush()
    return dashboard


def _counted(names: tuple[str, str], yours: int, others: int) -> str:
    """ "2 email subscriptions (1 of them other people's)", "1 alert (someone else's)"."""
    total = yours + others
    said = f"{total} {names[total != 1]}"
    if not others:
        return said
    if not yours:
        return f"{said} ({'someone else' if total == 1 else 'other people'}'s)"
    return f"{said} ({others} of them other people's)"


#: What the packages above keep on a dashboard (subscriptions, alerts), registered by
#: them as their singular and plural names and their model, which has ``dashboard_id``
#: and ``account_id``: this package cannot import them, and their rows go by the
#: database's cascade when the dashboard is deleted.
DEPENDENTS: list[tuple[tuple[str, str], Any]] = []


def delete_question(dashboard: Dashboard, account_id: uuid.UUID) -> str:
    """The delete's confirmation, saying what goes beyond the widgets: "Delete “Ops”,
    its widgets, 1 alert (someone else's) and 2 email subscriptions (1 of them other
    people's)? ..."."""
    parts = ["its widgets"]
    for names, model in sorted(DEPENDENTS, key=lambda d: d[0]):
        mine = model.account_id == account_id
        yours, others = db.session.execute(
            select(func.count().filter(mine), func.count().filter(~mine)).where(
                model.dashboard_id == dashboard.id
            )
        ).one()
        if yours or others:
            parts.append(_counted(names, yours, others))
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    joint = " and " if len(parts) == 1 else ", "
    return f"Delete “{dashboard.name}”{joint}{listed}? This cannot be undone."


def delete_dashboard(dashboard: Dashboard, actor_id: uuid.UUID) -> None:
    record_event(
        dashboard.org_id,
        "dashboard.deleted",
        actor_id=actor_id,
        subject=str(dashboard.id),
        name=dashboard.name,
    )
    db.session.delete(dashboard)
    db.session.flush()


def set_visibility(dashboard: Dashboard, actor_id: uuid.UUID, visibility: Visibility) -> Dashboard:
    if dashboard.visibility != visibility:
        dashboard.visibility = visibility
        kind = "published" if visibility == Visibility.WORKSPACE else "made_private"
        record_event(
            dashboard.org_id, f"dashboard.{kind}", actor_id=actor_id, subject=str(dashboard.id)
        )
        db.session.flush()
    return dashboard
