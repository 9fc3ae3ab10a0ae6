"""Creating, listing, muting and removing alerts (docs/delivery.md#alerts). Services
flush; the request or the job commits.

An alert is its creator's: only they list, read, mute or remove it (anyone else, in
the org or not, gets a 404). Creating one takes reading its dashboard; the people it
mails besides the creator must be active members who read the dashboard too.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, func, select

from workspace.analytics import dimensions
from workspace.analytics.alerts.models import Alert, AlertEvent, AlertState, Condition
from workspace.analytics.alerts.schemas import AlertDetail, AlertEventOut, AlertFields, AlertOut
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.models import Dashboard, Visibility
from workspace.analytics.dashboards.service import (
    DEPENDENTS,
    get_widget,
    load_dashboard,
)
from workspace.core.events import record_event
from workspace.core.models import Account, AccountKind, OrgMember
from workspace.core.orgs import active_membership
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.security.permissions import Access
from workspace.types import utcnow

#: Alerts one member may have (ALERTS_MAX_PER_MEMBER overrides).
MAX_PER_MEMBER = 50
#: History rows kept per alert: the newest.
HISTORY = 200
MUTES = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}


def _reader(access: Access, dashboard: Dashboard, account_id: uuid.UUID) -> Account:
    """A member the alert may mail: active in the org, a person, reading the dashboard."""
    account = db.session.get(Account, account_id)
    if account is None or account.is_agent or active_membership(access.org.id, account.id) is None:
        raise NotFoundError("No such member in this organization.", field="recipient_ids")
    if dashboard.visibility != Visibility.WORKSPACE and dashboard.owner_id != account.id:
        raise ServiceError(
            f"{account.name} cannot read this private dashboard: publish it first.",
            field="recipient_ids",
        )
    return account


def _check(org_id: uuid.UUID, data: AlertFields, spec: WidgetSpec) -> None:
    if data.condition == Condition.CHANGE and data.threshold <= 0:
        raise ServiceError("A change is a percentage greater than 0.", field="threshold")
    if not data.category:
        return
    if spec.is_time:
        raise ServiceError(
            "A time widget's buckets move: alert on its total (leave the category empty).",
            field="category",
        )
    # A category no row can have counts 0 for ever: a typo would fire "below" alerts
    # and silence "above" ones without a word. A row with no tasks today may be named.
    rows = dimensions.possible(org_id, spec.dimension)
    wanted = data.category.casefold()
    if not any(wanted in (key.casefold(), label.casefold()) for key, label in rows.items()):
        shown = list(rows.values())
        listed = ", ".join(shown[:12]) + (f" and {len(shown) - 12} more" if len(shown) > 12 else "")
        raise ServiceError(
            f"This widget has no {spec.dimension} named “{data.category}”: "
            f"name one of {listed}, or leave it empty for the total.",
            field="category",
        )


#: The settings a person chooses, in the order a change's history note names them.
SETTINGS = ("widget_id", "category", "condition", "threshold", "name", "interval_minutes",
            "notify_resolved", "recipients")  # fmt: skip
#: A change of any of these makes the alert a new rule: its state starts again at ok.
RULE = {"widget_id", "category", "condition", "threshold"}
#: A change of any of these is another figure: its last value means nothing now.
FIGURE = {"widget_id", "category"}


def _settings(access: Access, dashboard_id: uuid.UUID, data: AlertFields) -> dict:
    """``data`` checked against the dashboard (which the caller must read: else 404)
    and turned into the alert's :data:`SETTINGS`: the widget on that dashboard, the
    name defaulting to its title, the other members to mail, each once."""
    dashboard = load_dashboard(access, dashboard_id, "dashboard.read")
    widget = get_widget(dashboard, data.widget_id)
    _check(access.org.id, data, WidgetSpec.of(widget))
    recipients = [
        str(_reader(access, dashboard, account_id).id)
        for account_id in dict.fromkeys(data.recipient_ids)
        if account_id != access.account.id
    ]
    return {
        "widget_id": widget.id,
        "category": data.category or None,
        "condition": data.condition,
        "threshold": data.threshold,
        "name": (data.name or widget.title)[:200],
        "interval_minutes": data.interval_minutes,
        "notify_resolved": data.notify_resolved,
        "recipients": recipients,
    }


def create(access: Access, dashboard_id: uuid.UUID, data: AlertFields) -> Alert:
    """An alert of the caller's on a widget of a dashboard they read (someone's
    private dashboard, another org's, or a widget not on it: 404)."""
    settings = _settings(access, dashboard_id, data)
    mine = db.session.scalar(select(func.count()).where(Alert.account_id == access.account.id))
    cap = int(current_app.config.get("ALERTS_MAX_PER_MEMBER", MAX_PER_MEMBER))
    if mine >= cap:
        raise ConflictError(f"You have {mine} alerts, the most one may: remove one first.")
    alert = Alert(
        org_id=access.org.id,
        account_id=access.account.id,
        dashboard_id=dashboard_id,
        **settings,
        state=AlertState.OK,
        muted=False,
        # The first check is the next run of the schedule: it sets the value a
        # "changes by" alert compares with, and sends if the condition holds already.
        next_check_at=utcnow(),
    )
    db.session.add(alert)
    db.session.flush()
    record_event(access.org.id, "alert.created", actor_id=access.account.id,
                 subject=str(alert.id), dashboard_id=str(dashboard_id))  # fmt: skip
    return alert


def update(
    access: Access, alert: Alert, data: AlertFields, dashboard_id: uuid.UUID | None = None
) -> Alert:
    """The caller's alert with every setting as ``data`` gives it, checked as a new one
    is (a widget of the same dashboard, which the caller still reads: else 404).

    A new rule (another widget, category, condition or threshold) starts again: state
    ok, so the next check mails if it holds; another widget or category also forgets
    the last value (a "changes by" alert compares like with like). A paused alert
    resumes (its creator reads the dashboard again, or this would be a 404). The next
    check is the schedule's next run. ``dashboard_id``, if named, must be the alert's."""
    if dashboard_id not in (None, alert.dashboard_id):
        raise ServiceError(
            "An alert stays on its dashboard: create one on the other dashboard instead.",
            field="dashboard_id",
        )
    settings = _settings(access, alert.dashboard_id, data)
    changed = [name for name in SETTINGS if getattr(alert, name) != settings[name]]
    resumed = alert.state == AlertState.PAUSED
    if not changed and not resumed:
        return alert
    for name in changed:
        setattr(alert, name, settings[name])
    if resumed or RULE.intersection(changed):
        alert.state, alert.paused_reason = AlertState.OK, None
    if FIGURE.intersection(changed):
        alert.last_value = alert.last_checked_at = alert.last_error = None
    now = utcnow()
    alert.next_check_at = now
    db.session.flush()
    note = "Changed: " + ", ".join(n.replace("_", " ") for n in changed) if changed else None
    record(alert, "resumed" if resumed else "edited", now, previous=alert.last_value, note=note)
    record_event(access.org.id, "alert.updated", actor_id=access.account.id,
                 subject=str(alert.id), changed=",".join(changed))  # fmt: skip
    return alert


def my_alerts(access: Access) -> list[Alert]:
    return list(
        db.session.scalars(
            select(Alert)
            .where(Alert.org_id == access.org.id, Alert.account_id == access.account.id)
            .order_by(Alert.created_at)
        )
    )


def load_alert(access: Access, alert_id: uuid.UUID) -> Alert:
    """The caller's own alert in this org; anything else is a 404."""
    alert = db.session.get(Alert, alert_id)
    if alert is None or alert.org_id != access.org.id or alert.account_id != access.account.id:
        raise NotFoundError("No such alert.")
    return alert


def mute(alert: Alert, period: str, now: datetime | None = None) -> None:
    """Checks go on (the history keeps the values); no mail until the mute ends."""
    alert.muted = True
    alert.muted_until = None if period == "forever" else (now or utcnow()) + MUTES[period]


def unmute(alert: Alert) -> None:
    alert.muted, alert.muted_until = False, None


def is_muted(alert: Alert, now: datetime) -> bool:
    return alert.muted and (alert.muted_until is None or alert.muted_until > now)


def remove(alert: Alert, actor_id: uuid.UUID) -> None:
    record_event(alert.org_id, "alert.removed", actor_id=actor_id, subject=str(alert.id))
    db.session.delete(alert)
    db.session.flush()


def record(alert: Alert, kind: str, now: datetime, *, value: float | None = None,
           previous: float | None = None, sent_to: list[str] | None = None,
           note: str | None = None) -> AlertEvent:  # fmt: skip
    """One history row; past :data:`HISTORY` rows the oldest go."""
    event = AlertEvent(alert_id=alert.id, at=now, value=value, previous=previous,
                       state=alert.state, kind=kind, sent_to=sent_to or [], note=note)  # fmt: skip
    db.session.add(event)
    db.session.flush()
    keep = (
        select(AlertEvent.id)
        .where(AlertEvent.alert_id == alert.id)
        .order_by(AlertEvent.at.desc(), AlertEvent.id.desc())
        .limit(HISTORY)
        .scalar_subquery()
    )
    db.session.execute(
        delete(AlertEvent)
        .where(AlertEvent.alert_id == alert.id, AlertEvent.id.not_in(keep))
        .execution_options(synchronize_session=False)
    )
    return event


def events(alert: Alert, limit: int = HISTORY) -> list[AlertEvent]:
    return list(
        db.session.scalars(
            select(AlertEvent)
            .where(AlertEvent.alert_id == alert.id)
            .order_by(AlertEvent.at.desc(), AlertEvent.id.desc())
            .limit(limit)
        )
    )


def describe(alert: Alert) -> AlertOut:
    fields = {k: getattr(alert, k) for k in AlertOut.model_fields if hasattr(alert, k)}
    return AlertOut(**fields, recipient_ids=[uuid.UUID(r) for r in alert.recipients])


def detail(alert: Alert) -> AlertDetail:
    return AlertDetail(
        **describe(alert).model_dump(),
        events=[AlertEventOut.model_validate(e) for e in events(alert)],
    )


def members(access: Access, dashboard: Dashboard | None) -> list[tuple[uuid.UUID, str]]:
    """Whom the caller may add to an alert on ``dashboard``: other active people of
    the org who read it (none for someone's private dashboard)."""
    if dashboard is not None and dashboard.visibility != Visibility.WORKSPACE:
        return []
    statement = (
        select(Account.id, Account.name)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(OrgMember.org_id == access.org.id, OrgMember.active.is_(True))
        .where(Account.kind != AccountKind.AGENT, Account.id != access.account.id)
        .order_by(Account.name)
    )
    return [(row.id, row.name) for row in db.session.execute(statement)]


DEPENDENTS.append((("alert", "alerts"), Alert))
