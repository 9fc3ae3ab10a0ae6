"""Acme (the dashboards' world) with a published "Triage" dashboard whose number widget
counts open urgent bugs (none at first), and helpers that create alerts through the API,
add tasks, and run the check the scheduled job runs (here, on this thread)."""

from __future__ import annotations

import email
import uuid
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage

import pytest
from sqlalchemy import select, update

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard, world  # noqa: F401
from tests.delivery.conftest import configure, mail_app, smtp_servers  # noqa: F401
from workspace.analytics.alerts import check
from workspace.analytics.alerts.models import Alert, AlertEvent
from workspace.core.models import Project
from workspace.core.tasks import create_task
from workspace.delivery.models import OutboxMail
from workspace.extensions import db
from workspace.types import utcnow

URGENT_BUGS = "priority = urgent AND kind = bug"


@dataclass
class Team:
    world: World
    dashboard_id: str
    widget_id: str
    by_priority_id: str

    def alert(self, client, who=None, **body):
        """POST an alert as ``who`` (the owner); answers the response."""
        who = who or self.world.acme
        body.setdefault("dashboard_id", self.dashboard_id)
        body.setdefault("widget_id", self.widget_id)
        body.setdefault("condition", "above")
        body.setdefault("threshold", 2)
        return client.post(who.url("/alerts"), json=body, headers=who.headers)


@pytest.fixture
def team(app, client, world: World) -> Team:  # noqa: F811
    dash = new_dashboard(client, world.acme, name="Triage")
    number = add_widget(client, world.acme, dash["id"], title="Open urgent bugs",
                        chart_type="number", metric="open", filter=URGENT_BUGS)  # fmt: skip
    table = add_widget(client, world.acme, dash["id"], title="By priority", chart_type="table",
                       dimension="priority", metric="open")  # fmt: skip
    published = client.post(
        world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers
    )
    assert published.status_code == 200
    return Team(world, dash["id"], number["id"], table["id"])


def add_tasks(app, world: World, count: int,  # noqa: F811
              *, priority="urgent", kind="bug", prefix="Crash",
              assignee_id=None, project_id=None) -> list[str]:  # fmt: skip
    """``count`` new tasks in WEB (open: the default state); their titles."""
    titles = []
    with app.app_context():
        project = db.session.get(Project, project_id or world.web_id)
        for n in range(count):
            title = f"{prefix} {uuid.uuid4().hex[:6]} {n}"
            create_task(project, world.acme.owner_id, title=title, priority=priority, kind=kind,
                        assignee_id=assignee_id)  # fmt: skip
            titles.append(title)
        db.session.commit()
    return titles


def archive(app, titles: list[str]) -> None:
    from workspace.core.models import Task
    from workspace.core.tasks import update_task

    with app.app_context():
        for task in db.session.scalars(select(Task).where(Task.title.in_(titles))):
            update_task(task, None, {"archived": True})
        db.session.commit()


def run_checks(app) -> dict[str, int]:
    """What the ``alerts.check`` job does, with every alert due now."""
    with app.app_context():
        now = utcnow()
        db.session.execute(update(Alert).where(Alert.next_check_at.is_not(None))
                           .values(next_check_at=now))  # fmt: skip
        counts = check.run_due(now)
        db.session.commit()
        return counts


def outbox_to(app, address: str) -> list[OutboxMail]:
    with app.app_context():
        rows = db.session.scalars(
            select(OutboxMail).where(OutboxMail.to == address).order_by(OutboxMail.created_at)
        ).all()
        db.session.expunge_all()
        return list(rows)


def alert_row(app, alert_id) -> Alert:
    with app.app_context():
        row = db.session.get(Alert, uuid.UUID(str(alert_id)))
        db.session.expunge_all()
        return row


def history(app, alert_id) -> list[AlertEvent]:
    with app.app_context():
        rows = db.session.scalars(
            select(AlertEvent)
            .where(AlertEvent.alert_id == uuid.UUID(str(alert_id)))
            .order_by(AlertEvent.at)
        ).all()
        db.session.expunge_all()
        return list(rows)


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=policy.default)
