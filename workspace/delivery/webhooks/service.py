"""Webhook endpoints: register, change, rotate, remove, and read their delivery log
(docs/delivery.md#webhooks). Services flush, never commit. A secret is returned only
by :func:`create` and :func:`rotate`, once; everywhere else it stays sealed."""

from __future__ import annotations

import base64
import os
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import current_app
from sqlalchemy import func, select

from workspace.core.events import record_event
from workspace.delivery.webhooks.kinds import check_kinds
from workspace.delivery.webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from workspace.errors import ConflictError, FieldChecks, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.security.crypto import SecretUnreadable, seal, unseal
from workspace.security.outbound import OutboundError, check_url
from workspace.types import utcnow

MAX_URL = 2048
MAX_DESCRIPTION = 500
#: The delivery log page shows this many, newest first.
LOG_PAGE = 50


@dataclass(frozen=True)
class Created:
    endpoint: WebhookEndpoint
    #: ``whsec_<base64>``: shown once, never stored in the clear.
    secret: str


def new_secret() -> str:
    # 32 random bytes: the HMAC-SHA256 key, as Standard Webhooks writes it.
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


def check_webhook_url(url: str) -> str:
    """An https URL the guard lets the server reach; http only for a host listed in
    OUTBOUND_ALLOW_PRIVATE (a receiver on this machine or its network, and the tests)."""
    url = (url or "").strip()
    if not url:
        raise ServiceError("Enter the URL the events are sent to.", field="url")
    if len(url) > MAX_URL:
        raise ServiceError(f"The URL is longer than {MAX_URL} characters.", field="url")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:  # an unclosed [ of an IPv6 host, a port that is no number
        raise ServiceError(
            "Enter a URL such as https://hooks.example.com/workspace.", field="url"
        ) from None
    allowed = {h.lower() for h in current_app.config.get("OUTBOUND_ALLOW_PRIVATE", [])}
    if parts.scheme != "https" and not (parts.scheme == "http" and host in allowed):
        raise ServiceError("The URL must start with https://.", field="url")
    if parts.username or parts.password:
        raise ServiceError("Leave credentials out of the URL.", field="url")
    try:
        check_url(url)
    except OutboundError as exc:
        raise ServiceError(str(exc), field="url") from exc
    return url


def _check_description(text: str | None) -> str:
    text = (text or "").strip()
    if len(text) > MAX_DESCRIPTION:
        raise ServiceError(
            f"The description is longer than {MAX_DESCRIPTION} characters.", field="description"
        )
    return text


def list_endpoints(org_id: uuid.UUID) -> list[WebhookEndpoint]:
    return list(
        db.session.scalars(
            select(WebhookEndpoint)
            .where(WebhookEndpoint.org_id == org_id)
            .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
        )
    )


def get_endpoint(org_id: uuid.UUID, endpoint_id: uuid.UUID) -> WebhookEndpoint:
    """The org's endpoint; another org's is a 404 like one that does not exist."""
    row = db.session.get(WebhookEndpoint, endpoint_id)
    if row is None or row.org_id != org_id:
        raise NotFoundError("No such webhook endpoint in this organization.")
    return row


def create(
    org_id: uuid.UUID,
    actor_id: uuid.UUID | None,
    *,
    url: str,
    kinds: list[str],
    description: str | None = None,
) -> Created:
    checks = FieldChecks()  # a form with a wrong URL and no event names both
    url = checks.check(lambda: check_webhook_url(url))
    kinds = checks.check(lambda: check_kinds(kinds))
    description = checks.check(lambda: _check_description(description))
    checks.refuse()
    cap = int(current_app.config.get("WEBHOOKS_MAX_PER_ORG", 20))
    count = db.session.scalar(
        select(func.count()).select_from(WebhookEndpoint).where(WebhookEndpoint.org_id == org_id)
    )
    if count >= cap:
        raise ConflictError(f"An org has at most {cap} webhook endpoints; remove one first.")
    secret = new_secret()
    row = WebhookEndpoint(
        id=uuid.uuid4(),
        org_id=org_id,
        url=url,
        kinds=kinds,
        description=description,
        active=True,
        consecutive_failures=0,
        created_by_id=actor_id,
    )
    row.secret_sealed = seal(secret, row.id)
    db.session.add(row)
    record_event(org_id, "webhook.endpoint.created", actor_id=actor_id, subject=str(row.id),
                 url=url, kinds=kinds)  # fmt: skip
    db.session.flush()
    return Created(row, secret)


#: The settings ``create`` and ``update`` check, each by its own rule.
_CHECKS = {"url": check_webhook_url, "kinds": check_kinds, "description": _check_description}


def update(
    endpoint: WebhookEndpoint, actor_id: uuid.UUID | None, changes: dict[str, Any]
) -> WebhookEndpoint:
    """Change the URL, description, kinds or ``active``; enabling again clears the
    failure count, so an endpoint fixed by its owner gets a fresh start."""
    checks = FieldChecks()
    checked = {
        name: checks.check(lambda check=check, value=changes[name]: check(value))
        for name, check in _CHECKS.items()
        if changes.get(name) is not None
    }
    checks.refuse()
    for name, value in checked.items():
        setattr(endpoint, name, value)
    if "active" in changes and changes["active"] is not None:
        active = bool(changes["active"])
        if active and not endpoint.active:
            endpoint.consecutive_failures, endpoint.failing_since = 0, None
            endpoint.retry_at = None
            endpoint.disabled_reason = None
        elif not active and endpoint.active:
            endpoint.disabled_reason = "Disabled by an admin."
        endpoint.active = active
    record_event(endpoint.org_id, "webhook.endpoint.updated", actor_id=actor_id,
                 subject=str(endpoint.id), fields=sorted(k for k, v in changes.items()
                                                         if v is not None))  # fmt: skip
    db.session.flush()
    return endpoint


def remove(endpoint: WebhookEndpoint, actor_id: uuid.UUID | None) -> None:
    record_event(endpoint.org_id, "webhook.endpoint.deleted", actor_id=actor_id,
                 subject=str(endpoint.id), url=endpoint.url)  # fmt: skip
    db.session.delete(endpoint)
    db.session.flush()


def rotate(endpoint: WebhookEndpoint, actor_id: uuid.UUID | None) -> Created:
    """A new secret; the old one keeps signing beside it for WEBHOOKS_ROTATION_HOURS
    (default 24), so receivers can switch without losing a message."""
    hours = float(current_app.config.get("WEBHOOKS_ROTATION_HOURS", 24))
    old = _open(endpoint.secret_sealed, endpoint.id)
    secret = new_secret()
    endpoint.secret_sealed = seal(secret, endpoint.id)
    if old is not None and hours > 0:
        endpoint.previous_secret_sealed = seal(old, _previous_ad(endpoint.id))
        endpoint.previous_until = utcnow() + timedelta(hours=hours)
    else:
        endpoint.previous_secret_sealed = endpoint.previous_until = None
    record_event(endpoint.org_id, "webhook.secret.rotated", actor_id=actor_id,
                 subject=str(endpoint.id), overlap_hours=hours)  # fmt: skip
    db.session.flush()
    return Created(endpoint, secret)


def _previous_ad(endpoint_id: uuid.UUID) -> str:
    # Another associated data than the current secret's, so the two cannot be swapped.
    return f"{endpoint_id}.previous"


def _open(sealed: str | None, ad: object) -> str | None:
    if not sealed:
        return None
    try:
        return unseal(sealed, ad)
    except SecretUnreadable:
        return None  # key rotated: deliveries fail to sign until the secret is rotated


def signing_secrets(endpoint: WebhookEndpoint) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous
    one while the rotation's overlap lasts."""
    secrets = [s for s in [_open(endpoint.secret_sealed, endpoint.id)] if s]
    if endpoint.previous_until is not None and endpoint.previous_until > utcnow():
        previous = _open(endpoint.previous_secret_sealed, _previous_ad(endpoint.id))
        if previous:
            secrets.append(previous)
    return secrets


def deliveries(endpoint: WebhookEndpoint, limit: int = LOG_PAGE) -> list[WebhookDelivery]:
    return list(
        db.session.scalars(
            select(WebhookDelivery)
            .where(WebhookDelivery.endpoint_id == endpoint.id)
            .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id)
            .limit(limit)
        )
    )


def get_delivery(endpoint: WebhookEndpoint, delivery_id: uuid.UUID) -> WebhookDelivery:
    row = db.session.get(WebhookDelivery, delivery_id)
    if row is None or row.endpoint_id != endpoint.id:
        raise NotFoundError("No such delivery for this endpoint.")
    return row


def redeliver(delivery: WebhookDelivery, actor_id: uuid.UUID | None) -> WebhookDelivery:
    """Send the same message again (same ``webhook-id``: a receiver that already has it
    may drop it), with a fresh round of retries."""
    from workspace.delivery.webhooks import sending  # sending imports this module

    endpoint = db.session.get(WebhookEndpoint, delivery.endpoint_id)
    if not endpoint.active:
        raise ConflictError("The endpoint is disabled; enable it before redelivering.")
    if delivery.status == DeliveryStatus.PENDING and delivery.attempts == 0:
        raise ConflictError("This delivery has not been attempted yet.")
    endpoint.retry_at = None  # an admin's "try again" goes now, not after the backoff
    delivery.status = DeliveryStatus.PENDING
    delivery.attempts = 0
    delivery.delivered_at = None
    sending.queue(delivery)
    record_event(delivery.org_id, "webhook.delivery.redelivered", actor_id=actor_id,
                 subject=str(delivery.id))  # fmt: skip
    db.session.flush()
    return delivery


def ping(endpoint: WebhookEndpoint, actor_id: uuid.UUID | None) -> WebhookDelivery:
    """A ``webhook.test`` message to this endpoint alone, whatever it subscribes to."""
    from workspace.delivery.webhooks import sending

    if not endpoint.active:
        raise ConflictError("The endpoint is disabled; enable it before sending a test event.")
    endpoint.retry_at = None  # as redeliver: the admin asks for a try now
    delivery = sending.test_delivery(endpoint, actor_id)
    db.session.flush()
    return delivery
