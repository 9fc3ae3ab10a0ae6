"""Sending deliveries (docs/delivery.md#webhooks): one attempt per job, signed with
Standard Webhooks' reference library, through the outbound guard under a total
deadline; a failure waits for the next delay in WEBHOOKS_RETRY_DELAYS (about a day in
all) and ``webhooks.due`` queues what is due each minute. An endpoint that fails for
WEBHOOKS_DISABLE_AFTER_HOURS and at least WEBHOOKS_DISABLE_AFTER_FAILURES attempts in a
row is disabled, and its org's owners and admins are told by mail."""

from __future__ import annotations

import logging
import time
import uuid
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session
from standardwebhooks import Webhook

from workspace.core.events import record_event
from workspace.core.models import Account, OrgMember, OrgRole
from workspace.delivery.mail import MailError, send_mail
from workspace.delivery.webhooks import outbox, service
from workspace.delivery.webhooks.kinds import PING
from workspace.delivery.webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.jobs import schedule
from workspace.jobs.models import Job, JobState
from workspace.jobs.registry import Progress, handler
from workspace.jobs.service import enqueue, resend
from workspace.security.outbound import OutboundError, fetch
from workspace.transaction import commit_early
from workspace.types import utcnow

log = logging.getLogger(__name__)

DELIVER_KIND = "webhooks.deliver"
DUE_KIND = "webhooks.due"
QUEUE = "webhooks"
#: Seconds after each failed attempt: 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h,
#: 10 h; ten attempts over about 26 hours.
DEFAULT_DELAYS = [30, 120, 600, 1800, 3600, 7200, 14400, 28800, 36000]
#: A delivery whose job is on its way is not queued again by ``webhooks.due`` before.
LEASE = timedelta(minutes=5)
#: How long a delivery held back behind a failing endpoint's probe waits at least.
PROBE_WAIT = timedelta(seconds=5)
#: What the log keeps of an answer's body.
RESPONSE_CAP = 2048

schedule.every(timedelta(minutes=1), DUE_KIND, DUE_KIND)


def _delays() -> list[float]:
    return [float(s) for s in current_app.config.get("WEBHOOKS_RETRY_DELAYS", DEFAULT_DELAYS)]


def _job_row(org_id: uuid.UUID, delivery_id: uuid.UUID) -> Job:
    return Job(
        id=uuid.uuid4(),
        kind=DELIVER_KIND,
        queue=QUEUE,
        org_id=org_id,
        args={"delivery_id": str(delivery_id)},
        state=JobState.QUEUED,
        attempts=0,
        max_attempts=1,
    )


def add_delivery(
    session: Session, endpoint: WebhookEndpoint, message_id: str, kind: str, payload: dict
) -> WebhookDelivery:
    """Inside a flush (the outbox listener): the delivery and the job that sends it,
    both written by this flush; the job's message goes out once it commits."""
    delivery = WebhookDelivery(
        id=uuid.uuid4(),
        org_id=endpoint.org_id,
        endpoint_id=endpoint.id,
        message_id=message_id,
        kind=kind,
        payload=outbox.body(payload),
        status=DeliveryStatus.PENDING,
        attempts=0,
        next_attempt_at=utcnow() + LEASE,
    )
    session.add(delivery)
    job = _job_row(endpoint.org_id, delivery.id)
    session.add(job)
    if session is db.session():
        resend([job])  # sent on commit; the job row is this flush's
    else:  # someone else's session: webhooks.due sends it once the lease ends
        delivery.next_attempt_at = utcnow()
    return delivery


def queue(delivery: WebhookDelivery) -> None:
    """Outside a flush: send this delivery's next attempt now."""
    delivery.next_attempt_at = utcnow() + LEASE
    enqueue(DELIVER_KIND, org_id=delivery.org_id, args={"delivery_id": str(delivery.id)})


def test_delivery(endpoint: WebhookEndpoint, actor_id: uuid.UUID | None) -> WebhookDelivery:
    delivery_id = uuid.uuid4()
    data = {"endpoint_id": str(endpoint.id), "org_id": str(endpoint.org_id),
            "actor_id": str(actor_id) if actor_id else None,
            "message": "A test event from Workspace."}  # fmt: skip
    delivery = WebhookDelivery(
        id=delivery_id,
        org_id=endpoint.org_id,
        endpoint_id=endpoint.id,
        message_id=f"msg_{delivery_id.hex}",
        kind=PING,
        payload=outbox.body(outbox.envelope(PING, utcnow(), data)),
        status=DeliveryStatus.PENDING,
        attempts=0,
    )
    db.session.add(delivery)
    queue(delivery)
    return delivery


def sign(message_id: str, at: datetime, body: str, secrets: list[str]) -> str:
    """``v1,<base64>`` per secret, space-separated (Standard Webhooks allows several)."""
    return " ".join(Webhook(s).sign(message_id, at, body) for s in secrets)


def attempt(delivery_id: uuid.UUID) -> WebhookDelivery | None:
    """One attempt at one delivery; every outcome is written on the row (the caller's
    unit of work commits it). Never raises for the endpoint's failures."""
    delivery = db.session.get(WebhookDelivery, delivery_id)
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return delivery  # removed, or already delivered (a second message for it)
    endpoint = db.session.get(WebhookEndpoint, delivery.endpoint_id)
    if not endpoint.active:
        _give_up(delivery, "The endpoint is disabled.")
        return delivery
    secrets = service.signing_secrets(endpoint)
    if not secrets:
        _give_up(delivery, "The signing secret cannot be read; rotate it.")
        return delivery
    now = utcnow()
    if _over_org_rate(delivery.org_id, now):
        # Not an attempt: no request, no failure counted; webhooks.due takes it again
        # in a minute. One org's bulk import cannot hold every worker's thread.
        delivery.next_attempt_at = now + timedelta(seconds=60)
        return delivery
    if endpoint.consecutive_failures and not _claim_probe(endpoint, now):
        # Not an attempt either: the endpoint is failing and another attempt is, or
        # was lately, trying it. Waiting here keeps a receiver that hangs from holding
        # a worker's thread per delivery, so other endpoints and orgs go on.
        delivery.next_attempt_at = max(endpoint.retry_at or now, now + PROBE_WAIT)
        return delivery
    headers = {
        "content-type": "application/json",
        "user-agent": "Workspace-Webhooks/1",
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": sign(delivery.message_id, now, delivery.payload, secrets),
    }
    deadline = float(current_app.config.get("WEBHOOKS_DEADLINE", 15))
    delivery.attempts += 1
    delivery.last_attempt_at = now
    started = time.monotonic()
    try:
        response = fetch(
            "POST",
            endpoint.url,
            deadline=deadline,
            follow_redirects=False,
            data=delivery.payload.encode(),
            headers=headers,
        )
    except OutboundError as exc:  # refused by the guard, unreachable, too slow
        delivery.response_status = delivery.response_body = None
        delivery.response_ms = int((time.monotonic() - started) * 1000)
        _failed(delivery, endpoint, str(exc))
        return delivery
    delivery.response_ms = int((time.monotonic() - started) * 1000)
    delivery.response_status = response.status_code
    delivery.response_body = response.content[:RESPONSE_CAP].decode("utf-8", "replace")
    if 200 <= response.status_code < 300:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, utcnow()
        delivery.error = delivery.next_attempt_at = None
        endpoint.consecutive_failures, endpoint.failing_since = 0, None
        endpoint.retry_at = None
        return delivery
    reason = f"The endpoint answered HTTP {response.status_code}."
    if 300 <= response.status_code < 400:
        reason += " Redirects are not followed: register the final URL."
    _failed(delivery, endpoint, reason)
    return delivery


def _claim_probe(endpoint: WebhookEndpoint, now: datetime) -> bool:
    """Whether this attempt is the failing endpoint's one try now: a compare-and-set
    on ``retry_at``, committed before the request so the other workers see it while
    the receiver takes up to the deadline."""
    deadline = float(current_app.config.get("WEBHOOKS_DEADLINE", 15))
    claimed = db.session.execute(
        update(WebhookEndpoint)
        .where(
            WebhookEndpoint.id == endpoint.id,
            or_(WebhookEndpoint.retry_at.is_(None), WebhookEndpoint.retry_at <= now),
        )
        .values(retry_at=now + timedelta(seconds=deadline) + PROBE_WAIT)
        .execution_options(synchronize_session=False)
    )
    if not claimed.rowcount:
        db.session.refresh(endpoint, ["retry_at"])
        return False
    commit_early("the probe's claim must be seen before its request, which may be slow")
    return True


def _over_org_rate(org_id: uuid.UUID, now: datetime) -> bool:
    """Whether the org has had ``WEBHOOKS_MAX_PER_ORG_PER_MINUTE`` (600) attempts in
    the last minute, over all its endpoints."""
    rate = int(current_app.config.get("WEBHOOKS_MAX_PER_ORG_PER_MINUTE", 600))
    recent = db.session.scalar(
        select(func.count())
        .select_from(WebhookDelivery)
        .where(
            WebhookDelivery.org_id == org_id,
            WebhookDelivery.last_attempt_at >= now - timedelta(seconds=60),
        )
    )
    return int(recent or 0) >= rate


def _give_up(delivery: WebhookDelivery, reason: str) -> None:
    delivery.status, delivery.error, delivery.next_attempt_at = DeliveryStatus.FAILED, reason, None


def _failed(delivery: WebhookDelivery, endpoint: WebhookEndpoint, reason: str) -> None:
    delivery.error = reason[:1000]
    delays = _delays()
    if delivery.attempts > len(delays):
        _give_up(delivery, reason[:1000])
    else:
        delivery.next_attempt_at = utcnow() + timedelta(seconds=delays[delivery.attempts - 1])
    endpoint.consecutive_failures += 1
    endpoint.failing_since = endpoint.failing_since or delivery.last_attempt_at
    # The endpoint backs off as its deliveries do: its next try after the delay that
    # follows this many failures in a row (the last delay once past the plan).
    wait = delays[min(endpoint.consecutive_failures, len(delays)) - 1] if delays else 0
    endpoint.retry_at = utcnow() + timedelta(seconds=wait)
    _maybe_disable(endpoint)


def _maybe_disable(endpoint: WebhookEndpoint) -> None:
    config = current_app.config
    failures = int(config.get("WEBHOOKS_DISABLE_AFTER_FAILURES", 10))
    hours = float(config.get("WEBHOOKS_DISABLE_AFTER_HOURS", 24))
    if endpoint.consecutive_failures < failures:
        return
    if endpoint.failing_since > utcnow() - timedelta(hours=hours):
        return
    reason = (
        f"Disabled automatically: {endpoint.consecutive_failures} attempts in a row failed "
        f"since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC."
    )
    endpoint.active, endpoint.disabled_reason = False, reason
    db.session.execute(
        update(WebhookDelivery)
        .where(
            WebhookDelivery.endpoint_id == endpoint.id,
            WebhookDelivery.status == DeliveryStatus.PENDING,
        )
        .values(
            status=DeliveryStatus.FAILED, error="The endpoint was disabled.", next_attempt_at=None
        )
        .execution_options(synchronize_session=False)
    )
    record_event(endpoint.org_id, "webhook.endpoint.disabled", subject=str(endpoint.id),
                 url=endpoint.url, reason=reason)  # fmt: skip
    _tell_admins(endpoint, reason)


def admins(org_id: uuid.UUID) -> list[str]:
    """The addresses of the org's active owners and admins (people, not agents)."""
    rows = db.session.scalars(
        select(Account.email)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == org_id,
            OrgMember.active.is_(True),
            OrgMember.role.in_((OrgRole.OWNER, OrgRole.ADMIN)),
            Account.kind == "person",
        )
        .order_by(Account.email)
    )
    return list(rows)[:50]


def _tell_admins(endpoint: WebhookEndpoint, reason: str) -> None:
    to = admins(endpoint.org_id)
    if not to:
        return
    text = (
        f"The webhook endpoint {endpoint.url} ({endpoint.description or 'no description'}) "
        f"was disabled.\n\n{reason}\n\nIts waiting deliveries were marked failed. Fix the "
        "receiver, enable the endpoint again in Settings > Webhooks, and redeliver what it "
        "missed from its delivery log.\n"
    )
    try:
        send_mail(to, "A webhook endpoint was disabled", text)
    except (MailError, ServiceError) as exc:
        # The audit event and the endpoint's page still say it; the mail is a courtesy.
        log.warning("could not mail the admins about webhook %s: %s", endpoint.id, exc)


def run_due(now: datetime) -> int:
    """Queue every pending delivery whose time has come; the compare-and-set on
    ``next_attempt_at`` keeps two runs from queueing one twice."""
    rows = db.session.execute(
        select(WebhookDelivery.id, WebhookDelivery.org_id, WebhookDelivery.next_attempt_at)
        .where(
            WebhookDelivery.status == DeliveryStatus.PENDING,
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(500)
    ).all()
    queued = 0
    for row in rows:
        claimed = db.session.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == row.id,
                WebhookDelivery.next_attempt_at == row.next_attempt_at,
            )
            .values(next_attempt_at=now + LEASE)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount:
            enqueue(DELIVER_KIND, org_id=row.org_id, args={"delivery_id": str(row.id)})
            queued += 1
    return queued


@handler(DELIVER_KIND, queue=QUEUE, max_attempts=1, time_limit_ms=120_000)
def deliver(job: Job, progress: Progress) -> None:
    """One attempt; the delivery row holds the retry plan, not the job."""
    delivery = attempt(uuid.UUID(job.args["delivery_id"]))
    if delivery is not None:
        job.result = {"status": delivery.status, "http_status": delivery.response_status}


def purge(now: datetime) -> int:
    """Forget finished deliveries older than WEBHOOKS_LOG_DAYS (30): the log is for
    seeing what happened lately and redelivering it, not an archive (the audit log is)."""
    days = float(current_app.config.get("WEBHOOKS_LOG_DAYS", 30))
    result = db.session.execute(
        delete(WebhookDelivery).where(
            WebhookDelivery.status != DeliveryStatus.PENDING,
            WebhookDelivery.created_at < now - timedelta(days=days),
        )
    )
    return result.rowcount or 0


@handler(DUE_KIND, max_attempts=1, time_limit_ms=60_000)
def due(job: Job, progress: Progress) -> None:
    now = utcnow()
    job.result = {"queued": run_due(now), "purged": purge(now)}
