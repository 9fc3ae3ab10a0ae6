"""Webhook endpoints and their delivery log (docs/delivery.md#webhooks)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # waiting for its first attempt or a retry
    DELIVERED = "delivered"  # the endpoint answered 2xx
    FAILED = "failed"  # every attempt failed, or the endpoint was disabled


class WebhookEndpoint(db.Model):
    """Where an org's events go. The signing secret is sealed with the row's id; during
    a rotation's overlap the previous one is kept (sealed too) until ``previous_until``."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str] = mapped_column(String(500), default="")
    #: Subscribed kinds: exact kinds, ``prefix.*`` groups, or ``*`` for everything.
    kinds: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    #: Why it is inactive: "disabled by an admin" or the automatic disabling's reason.
    disabled_reason: Mapped[str | None] = mapped_column(String(500))
    secret_sealed: Mapped[str] = mapped_column(Text)
    previous_secret_sealed: Mapped[str | None] = mapped_column(Text)
    previous_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Failed attempts in a row, and when the first of them happened (a 2xx resets both).
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: While failing: when the next attempt may be made. One attempt claims it (the
    #: probe); the endpoint's other deliveries wait until it is known to answer.
    retry_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    def __repr__(self) -> str:  # never the secret
        return f"<WebhookEndpoint {self.id} {self.url}>"


class WebhookDelivery(db.Model):
    """One message to one endpoint: the exact body signed, and how its attempts went.
    Written in the transaction that recorded the event (a transactional outbox)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_org_attempted", "org_id", "last_attempt_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    endpoint_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    #: The ``webhook-id`` header: the same for every attempt and every endpoint of one
    #: event, so a receiver can drop duplicates.
    message_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=DeliveryStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_ms: Mapped[int | None] = mapped_column(Integer)
    #: The first RESPONSE_CAP bytes of the last answer's body (never its headers).
    response_body: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = created_at_column()
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
