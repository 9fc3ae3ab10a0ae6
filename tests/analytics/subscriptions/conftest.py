"""Acme (the dashboards' world) with tasks assigned to its owner and to Mia, so that
``currentUser()`` tells recipients apart; helpers that subscribe through the API and
run the send jobs on this thread (no broker wait: the runner is called directly, and
a retry is the runner called again)."""

from __future__ import annotations

import contextlib
import email
import uuid
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard, world  # noqa: F401
from tests.delivery.conftest import configure, mail_app, smtp_servers  # noqa: F401
from workspace.analytics.subscriptions.models import Subscription, SubscriptionSend
from workspace.core.models import Org, Project
from workspace.core.tasks import create_task
from workspace.delivery.models import OutboxMail
from workspace.extensions import db
from workspace.jobs import runner

#: Tasks assigned to the owner (3) and to Mia (1), on top of the world's six.
MINE = {"owner": 3, "mia": 1}


@dataclass
class Team:
    world: World
    dashboard_id: str

    def url(self, path: str = "") -> str:
        return self.world.url(f"/dashboards/{self.dashboard_id}{path}")


@pytest.fixture
def team(app, client, world: World) -> Team:  # noqa: F811
    with app.app_context():
        project = db.session.get(Project, world.web_id)
        for who, count in MINE.items():
            fixture = world.acme if who == "owner" else world.member
            for n in range(count):
                create_task(project, world.acme.owner_id, title=f"{who} {n}",
                            assignee_id=fixture.owner_id)  # fmt: skip
        db.session.get(Org, world.acme.org_id).timezone = "Europe/Berlin"
        db.session.commit()
    dash = new_dashboard(client, world.acme, name="Team review")
    add_widget(client, world.acme, dash["id"], title="Open work", chart_type="number")
    add_widget(client, world.acme, dash["id"], title="By priority", chart_type="table",
               dimension="priority")  # fmt: skip
    published = client.post(
        world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers
    )
    assert published.status_code == 200
    return Team(world, dash["id"])


def subscribe(client, team: Team, who, **body):
    body.setdefault("frequency", "daily")
    body.setdefault("hour", 8)
    return client.post(team.url("/subscriptions"), json=body, headers=who.headers)


def run_sends(app) -> list[str]:
    """Run every queued send job once, here; the statuses of all sends after."""
    with app.app_context():
        jobs = db.session.scalars(
            select(SubscriptionSend.job_id).where(
                SubscriptionSend.status.in_(("queued", "retrying"))
            )
        ).all()
    for job_id in jobs:
        # A failed attempt raises: the broker would retry it later; the test does.
        with contextlib.suppress(Exception):
            runner.run(app, str(job_id))
    with app.app_context():
        return list(
            db.session.scalars(
                select(SubscriptionSend.status).order_by(SubscriptionSend.created_at)
            )
        )


def outbox_to(app, address: str) -> list[OutboxMail]:
    with app.app_context():
        rows = db.session.scalars(select(OutboxMail).where(OutboxMail.to == address)).all()
        db.session.expunge_all()
        return list(rows)


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=policy.default)


def subscription(app, subscription_id) -> Subscription | None:
    with app.app_context():
        row = db.session.get(Subscription, uuid.UUID(str(subscription_id)))
        db.session.expunge_all()
        return row
