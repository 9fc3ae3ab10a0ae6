"""A dashboard mailed on a schedule to one member, and each send
(docs/delivery.md#subscriptions)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class SendStatus(StrEnum):
    QUEUED = "queued"
    SENT = "sent"
    #: The recipient could no longer read the dashboard: nothing was sent.
    SKIPPED = "skipped"
    #: An attempt failed and the job will try again (backoff).
    RETRYING = "retrying"
    #: Every attempt failed.
    FAILED = "failed"


class Subscription(db.Model):
    """One member's scheduled mail of one dashboard: one per member and dashboard."""

    __tablename__ = "dashboard_subscriptions"
    __table_args__ = (
        UniqueConstraint("dashboard_id", "account_id", name="uq_dashboard_subscriptions_member"),
        Index("ix_dashboard_subscriptions_due", "next_send_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    dashboard_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("dashboards.id", ondelete="CASCADE"))
    #: The recipient: the mail is rendered with their permissions and currentUser().
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    #: Who subscribed them (themselves, or the dashboard's owner).
    created_by: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: "daily", "weekly" or "monthly", at ``hour`` (0-23) in the org's time zone.
    frequency: Mapped[str] = mapped_column(String(16))
    hour: Mapped[int] = mapped_column(Integer)
    #: Weekly: 0 (Monday) to 6 (Sunday). Monthly: 1 to 31, the month's last day when shorter.
    weekday: Mapped[int | None] = mapped_column(Integer)
    day_of_month: Mapped[int | None] = mapped_column(Integer)
    #: The subscription's own PQL, on top of the dashboard's filter; checked on save.
    pql_filter: Mapped[str | None] = mapped_column(Text)
    #: The next send, in UTC; None while paused.
    next_send_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Why sends stopped ("no access"); None while active.
    paused_reason: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = created_at_column()

    sends: Mapped[list[SubscriptionSend]] = relationship(
        back_populates="subscription",
        order_by="SubscriptionSend.created_at.desc()",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class SubscriptionSend(db.Model):
    """One mail of a subscription, scheduled or "send now", and how it went."""

    __tablename__ = "dashboard_subscription_sends"

    id: Mapped[uuid.UUID] = uuid_pk()
    subscription_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("dashboard_subscriptions.id", ondelete="CASCADE"), index=True
    )
    #: "schedule" or "now".
    trigger: Mapped[str] = mapped_column(String(16))
    #: The instant it was due (a scheduled send) or asked for.
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    status: Mapped[str] = mapped_column(String(16), default=SendStatus.QUEUED)
    #: Why it failed or was skipped, safe to show (no secrets: MailError's message).
    reason: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: The job that sends it; its row may be purged later.
    job_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"))
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()

    subscription: Mapped[Subscription] = relationship(back_populates="sends")
