"""A subscription's mail through a real SMTP server (aiosmtpd on loopback,
tests/delivery/conftest.py): the PDF attached is a PDF, the HTML and text parts are
there with the List-Unsubscribe headers; a server that refuses the connection makes
the send "retrying" with the reason, the job's next attempt sends it, and a send
whose every attempt fails ends "failed", all shown in the history."""

from __future__ import annotations

import contextlib
import uuid

from sqlalchemy import select

from tests.analytics.subscriptions.conftest import Team, configure, parse, subscribe
from workspace.analytics.subscriptions.models import SubscriptionSend
from workspace.extensions import db
from workspace.jobs import runner
from workspace.jobs.models import Job


def _queue(client, team: Team, who) -> str:
    body = subscribe(client, team, who, pql_filter="assignee = currentUser()").get_json()
    answer = client.post(team.url(f"/subscriptions/{body['id']}/send"), headers=who.headers)
    assert answer.status_code == 202
    return body["id"]


def _attempt(app, subscription_id: str) -> SubscriptionSend:
    """One attempt of the subscription's newest send's job; the send row after it."""
    with app.app_context():
        send = db.session.scalars(
            select(SubscriptionSend)
            .where(SubscriptionSend.subscription_id == uuid.UUID(subscription_id))
            .order_by(SubscriptionSend.created_at.desc())
        ).first()
        job_id = send.job_id
    # A failed attempt raises for the broker to retry; the test retries by hand.
    with contextlib.suppress(Exception):
        runner.run(app, str(job_id))
    with app.app_context():
        send = db.session.get(SubscriptionSend, send.id)
        db.session.expunge(send)
        return send


def test_the_mail_reaches_a_real_server_with_its_pdf(mail_app, client, team: Team, smtp_servers):
    configure(mail_app, smtp_servers.plain, "none")
    world = team.world
    before = len(smtp_servers.received.to(world.acme.owner_email))
    subscription_id = _queue(client, team, world.acme)
    assert _attempt(mail_app, subscription_id).status == "sent"
    raw = smtp_servers.received.to(world.acme.owner_email)[-1]  # the servers outlive a test
    assert b"\r\nList-Unsubscribe: <http" in raw  # one line, no encoded-words
    message = parse(raw)
    assert message["Subject"].startswith("Team review")
    assert message["List-Unsubscribe"].startswith("<http")
    assert "/subscriptions/unsubscribe/" in message["List-Unsubscribe"]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert "Open work: 3" in text and "Open work" in html
    (pdf,) = [part for part in message.iter_attachments()]
    assert pdf.get_content_type() == "application/pdf"
    assert pdf.get_filename() == "team-review.pdf"
    assert pdf.get_content().startswith(b"%PDF")
    assert len(smtp_servers.received.to(world.acme.owner_email)) == before + 1


def test_a_failed_send_is_retried_and_shown(mail_app, client, team: Team, smtp_servers):
    world = team.world
    configure(mail_app, smtp_servers.refused, "none")  # nothing listens there
    before = len(smtp_servers.received.to(world.member.owner_email))
    subscription_id = _queue(client, team, world.member)
    first = _attempt(mail_app, subscription_id)
    assert first.status == "retrying" and first.attempts == 1
    assert "refused" in first.reason.lower() or "connect" in first.reason.lower()
    with mail_app.app_context():
        job = db.session.get(Job, first.job_id)
        assert job.state == "retrying" and job.last_error
    shown = client.get(team.url(f"/subscriptions/{subscription_id}"), headers=world.member.headers)
    assert shown.get_json()["sends"][0]["status"] == "retrying"
    # The server is back: the job's next attempt sends it.
    configure(mail_app, smtp_servers.plain, "none")
    second = _attempt(mail_app, subscription_id)
    assert second.status == "sent" and second.attempts == 2 and second.reason is None
    assert len(smtp_servers.received.to(world.member.owner_email)) == before + 1


def test_a_send_that_always_fails_ends_failed(mail_app, client, team: Team, smtp_servers):
    configure(mail_app, smtp_servers.refused, "none")
    subscription_id = _queue(client, team, team.world.member)
    with mail_app.app_context():
        send = db.session.scalars(select(SubscriptionSend)).one()
        job = db.session.get(Job, send.job_id)
        job.attempts = job.max_attempts - 1  # the earlier attempts, already failed
        db.session.commit()
    last = _attempt(mail_app, subscription_id)
    assert last.status == "failed" and last.finished_at is not None and last.reason
    with mail_app.app_context():
        assert db.session.get(Job, last.job_id).state == "dead"
