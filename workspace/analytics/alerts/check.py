"""Checking alerts (docs/delivery.md#alerts): the figure as the creator sees it now,
the condition, and the mail when it starts to hold (and, when asked, when it stops).

Two workers never send twice for one change: the due run claims each alert with a
compare-and-set on ``next_check_at``, and the state moves (ok -> firing, firing -> ok)
are conditional updates too, so of two checks that read the same state only the one
whose update matched sends.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update

from workspace.analytics.alerts import mailing, service
from workspace.analytics.alerts.access import reader_access
from workspace.analytics.alerts.models import Alert, AlertState, Condition
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.present import present
from workspace.analytics.dashboards.query import DashboardQuery
from workspace.analytics.dashboards.ranges import DateRange
from workspace.analytics.dashboards.service import get_widget, load_dashboard
from workspace.core.models import Account, Org
from workspace.delivery.links import absolute, link_context
from workspace.errors import ForbiddenError, NotFoundError
from workspace.extensions import db

log = logging.getLogger(__name__)
NO_ACCESS = "no access"
#: Alerts taken per run of the due job; the rest wait for the next run.
DUE_BATCH = 500
#: Taken off each interval: the run one period later starts a little less than a
#: period after this one (the scheduler's tick, the queue), and must find the alert due,
#: or a 5-minute alert would be checked every 10 minutes.
SLACK = timedelta(seconds=30)


@dataclass
class Figure:
    value: float | None
    #: The drill-down to exactly the tasks counted (absolute); None for a zero
    #: category (no tasks to list).
    href: str | None
    widget: str
    dashboard: str
    error: str | None = None


def holds(condition: str, threshold: float, value: float, previous: float | None) -> bool:
    """Whether the condition holds. ``change``: at least ``threshold`` percent away
    from the previous check's value; no previous value holds nothing, and from 0 any
    other value is an unbounded change (it holds), 0 again none."""
    if condition == Condition.ABOVE:
        return value > threshold
    if condition == Condition.BELOW:
        return value < threshold
    if previous is None:
        return False
    if previous == 0:
        return value != 0
    return abs(value - previous) / abs(previous) * 100 >= threshold


def figure(alert: Alert, creator: Account | None) -> Figure:
    """The widget's figure computed as the creator: their access to the dashboard
    (NotFoundError when they lost it), ``currentUser()`` the creator, the dashboard's
    filter and range. The total, or the named category (0 when it has no tasks)."""
    access = reader_access(alert, creator)
    dashboard = load_dashboard(access, alert.dashboard_id)
    widget = get_widget(dashboard, alert.widget_id)
    query = DashboardQuery(access.org, creator.id, dashboard.pql_filter,
                           dashboard_range=DateRange.of(dashboard))  # fmt: skip
    with link_context():
        (result,) = query.link(query.results([WidgetSpec.of(widget)]))
    view = present(result)
    if view.error:
        return Figure(None, None, widget.title, dashboard.name, error=view.error)
    if not alert.category:
        return Figure(view.total, absolute(view.total_href), widget.title, dashboard.name)
    wanted = alert.category.casefold()
    for row in view.rows:
        if wanted in (str(row["label"]).casefold(), str(row["key"]).casefold()):
            href = absolute(row.get("href"))
            return Figure(row["value"], href, widget.title, dashboard.name)
    return Figure(0, None, widget.title, dashboard.name)


def _move(alert: Alert, before: str, after: str) -> bool:
    """The state change, only if nobody made it first (a conditional update)."""
    moved = db.session.execute(
        update(Alert)
        .where(Alert.id == alert.id, Alert.state == before)
        .values(state=after)
        .execution_options(synchronize_session=False)
    )
    if moved.rowcount != 1:
        return False
    alert.state = after
    return True


def pause(alert: Alert, now: datetime, note: str) -> None:
    if not _move(alert, alert.state, AlertState.PAUSED):
        return
    alert.paused_reason, alert.next_check_at = NO_ACCESS, None
    service.record(alert, "paused", now, previous=alert.last_value, note=note)


def check(alert: Alert, now: datetime) -> str | None:
    """Check one alert now; answers the history kind it wrote ("fired", "resolved",
    "paused", "error"), or None when nothing changed."""
    if alert.state == AlertState.PAUSED:
        return None
    creator = db.session.get(Account, alert.account_id)
    try:
        found = figure(alert, creator)
    except (NotFoundError, ForbiddenError):
        pause(alert, now, "The creator can no longer read the dashboard: nothing is sent.")
        return "paused"
    alert.last_checked_at = now
    if found.error is not None:
        if found.error == alert.last_error:
            return None
        alert.last_error = found.error
        service.record(alert, "error", now, previous=alert.last_value, note=found.error)
        return "error"
    previous, value = alert.last_value, float(found.value)
    alert.last_value, alert.last_error = value, None
    if alert.muted and alert.muted_until is not None and alert.muted_until <= now:
        service.unmute(alert)
    now_holds = holds(alert.condition, alert.threshold, value, previous)
    if now_holds and alert.state == AlertState.OK:
        if not _move(alert, AlertState.OK, AlertState.FIRING):
            return None  # another check saw the same start and sent it
        kind = "fired"
    elif not now_holds and alert.state == AlertState.FIRING:
        if not _move(alert, AlertState.FIRING, AlertState.OK):
            return None
        kind = "resolved"
    else:
        return None
    sent_to, note = [], None
    if service.is_muted(alert, now):
        note = "Muted: nothing sent."
    elif kind == "resolved" and not alert.notify_resolved:
        note = "No mail: this alert does not mail when it resolves."
    else:
        org = db.session.get(Org, alert.org_id)
        sent_to, note = mailing.send(alert, kind, creator, org, found, value, previous)
    service.record(alert, kind, now, value=value, previous=previous, sent_to=sent_to, note=note)
    return kind


def claim(alert_id: uuid.UUID, due_at: datetime, now: datetime, minutes: int) -> bool:
    """Move the alert's next check on, if it still is ``due_at`` (compare-and-set):
    of two runs that read the same due alert, one checks it."""
    moved = db.session.execute(
        update(Alert)
        .where(Alert.id == alert_id, Alert.next_check_at == due_at)
        .values(next_check_at=now + timedelta(minutes=minutes) - SLACK)
        .execution_options(synchronize_session=False)
    )
    return moved.rowcount == 1


def run_due(now: datetime) -> dict[str, int]:
    """Check every alert due at ``now``. One alert whose check fails (a bug, a
    database hiccup) is logged and rolled back alone; the others go on."""
    due = db.session.execute(
        select(Alert.id, Alert.next_check_at, Alert.interval_minutes)
        .where(Alert.next_check_at <= now, Alert.state != AlertState.PAUSED)
        .order_by(Alert.next_check_at)
        .limit(DUE_BATCH)
    ).all()
    counts = {"checked": 0, "fired": 0, "resolved": 0, "paused": 0, "failed": 0}
    for alert_id, due_at, minutes in due:
        try:
            with db.session.begin_nested():
                if not claim(alert_id, due_at, now, minutes):
                    continue
                alert = db.session.get(Alert, alert_id)
                db.session.refresh(alert)
                kind = check(alert, now)
        except Exception:
            log.exception("alert %s: the check failed", alert_id)
            counts["failed"] += 1
            continue
        counts["checked"] += 1
        if kind in counts:
            counts[kind] += 1
    return counts
