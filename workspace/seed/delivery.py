"""The demo's delivery story (docs/delivery.md): the owner gets "Delivery overview" by
mail every Monday at eight and a colleague her own rows of it each morning; a second
colleague tried a subscription and left it; the owner watches the open bugs with an
alert (changed once), and removed a first try at one.

Webhooks are left out: the demo has no receiver to send to, and an endpoint nobody
answers would only fill the log with failures (tests/delivery covers each kind)."""

from __future__ import annotations

from sqlalchemy import select

from workspace.analytics.alerts import service as alerts
from workspace.analytics.alerts.schemas import AlertFields
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.subscriptions import service as subscriptions
from workspace.analytics.subscriptions.schemas import DashboardSubscriptionIn
from workspace.extensions import db
from workspace.security.permissions import org_access
from workspace.seed.demo import Demo


def _widget(dashboard: Dashboard, title: str):
    return next(w for w in dashboard.widgets if w.title == title)


def delivery(demo: Demo) -> None:
    """After :func:`~.dashboards.dashboards`, whose shared dashboard it mails."""
    overview = db.session.scalar(
        select(Dashboard).where(
            Dashboard.org_id == demo.org.id, Dashboard.name == "Delivery overview"
        )
    )
    owner = org_access(demo.org.id, demo.owner)
    colleagues = [p for p in demo.people.values() if p.id != demo.owner.id][:2]
    with demo.at(7):
        subscriptions.subscribe(
            owner, overview, DashboardSubscriptionIn(frequency="weekly", hour=8, weekday=0)
        )
    with demo.at(6):
        mine = DashboardSubscriptionIn(
            frequency="daily", hour=9, pql_filter="assignee = currentUser()",
            account_id=colleagues[0].id,
        )  # fmt: skip
        subscriptions.subscribe(owner, overview, mine)
    tried = org_access(demo.org.id, colleagues[1])
    with demo.at(5):
        trial, _ = subscriptions.subscribe(
            tried, overview, DashboardSubscriptionIn(frequency="monthly", hour=7, day_of_month=1)
        )
    with demo.at(3):
        subscriptions.remove(trial, colleagues[1].id)
    bugs = _widget(overview, "Open bugs by priority")
    with demo.at(4):
        first = alerts.create(
            owner, overview.id, AlertFields(widget_id=bugs.id, condition="above", threshold=1)
        )
    with demo.at(4, 1):
        alerts.remove(first, demo.owner.id)
        watch = AlertFields(
            widget_id=bugs.id, name="Urgent bugs pile up", category="Urgent",
            condition="above", threshold=20, notify_resolved=True,
        )  # fmt: skip
        piling = alerts.create(owner, overview.id, watch.model_copy(update={"threshold": 10}))
    with demo.at(4, 2):  # the first threshold was too low: changed, not made again
        alerts.update(owner, piling, watch)
