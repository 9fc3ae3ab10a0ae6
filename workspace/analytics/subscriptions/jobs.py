"""The subscriptions' two job kinds (docs/delivery.md#the-jobs):
``subscriptions.due`` every minute queues the due sends, and ``subscriptions.send``
makes and sends one mail, retried with backoff when the mail server fails."""

from __future__ import annotations

import uuid
from datetime import timedelta

from workspace.analytics.subscriptions import mailing, service
from workspace.analytics.subscriptions.models import SendStatus, SubscriptionSend
from workspace.core.models import Account
from workspace.delivery.mail import MailError, send_mail
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import db
from workspace.jobs import schedule
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler
from workspace.transaction import commit_early
from workspace.types import utcnow

DUE_KIND = "subscriptions.due"
NO_ACCESS = "no access"

schedule.every(timedelta(minutes=1), DUE_KIND, DUE_KIND)


@handler(DUE_KIND, max_attempts=1, time_limit_ms=60_000)
def run_due(job: Job, progress: Progress) -> None:
    """The schedule claims each minute once; the compare-and-set in
    :func:`service.run_due` keeps a due row from being queued twice even so."""
    job.result = {"queued": service.run_due(utcnow())}


# Retries: 30 s, 1, 2, 4 min... up to 30 min between attempts, 6 attempts (about an
# hour): an SMTP server down for a restart is waited for; one down for the day is not.
@handler(
    service.SEND_KIND,
    queue="exports",  # the worker that keeps Chromium warm draws the PDF's charts
    max_attempts=6,
    min_backoff=30_000,
    max_backoff=30 * 60_000,
    time_limit_ms=5 * 60_000,
)
def send(job: Job, progress: Progress) -> None:
    """Make the mail as the recipient sees the dashboard now, and send it. A recipient
    who lost the dashboard gets nothing: the send is "skipped: no access" and the
    subscription paused. A failed delivery is recorded on the send (with the attempt)
    before the job is retried."""
    row = db.session.get(SubscriptionSend, uuid.UUID(job.args["send_id"]))
    if row is None or row.status in (SendStatus.SENT, SendStatus.SKIPPED):
        return  # the subscription was removed, or a second delivery of a finished send
    subscription = row.subscription
    recipient = db.session.get(Account, subscription.account_id)
    row.attempts = job.attempts
    try:
        mail = mailing.compose(subscription, recipient)
    except NotFoundError:
        row.status, row.reason, row.finished_at = SendStatus.SKIPPED, NO_ACCESS, utcnow()
        service.pause(subscription, NO_ACCESS)
        return
    except ServiceError as exc:  # the dashboard's own filter no longer parses, say
        row.status, row.reason, row.finished_at = SendStatus.FAILED, exc.message, utcnow()
        return
    try:
        send_mail(
            recipient.email,
            mail.subject,
            mail.text,
            mail.html,
            mail.attachments,
            headers=mail.headers,
        )
    except ServiceError as exc:  # a mail send_mail refuses (over 10 MiB): no retry helps
        row.status, row.reason, row.finished_at = SendStatus.FAILED, exc.message, utcnow()
        return
    except MailError as exc:
        last = job.attempts >= job.max_attempts
        row.status = SendStatus.FAILED if last else SendStatus.RETRYING
        row.reason = str(exc)
        row.finished_at = utcnow() if last else None
        # Kept whatever the job does next: the runner rolls this attempt back.
        commit_early("a failed send is shown in the history while the job retries")
        raise
    row.status, row.reason, row.finished_at = SendStatus.SENT, None, utcnow()
