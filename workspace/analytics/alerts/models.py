"""An alert on a dashboard widget's figure, and its history (docs/delivery.md#alerts)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class Condition(StrEnum):
    ABOVE = "above"
    BELOW = "below"
    #: The value moved by at least ``threshold`` percent since the previous check.
    CHANGE = "change"


class AlertState(StrEnum):
    #: Not checked yet, or the condition does not hold.
    OK = "ok"
    #: The condition holds (its start sent the mail).
    FIRING = "firing"
    #: The creator lost the dashboard: no more checks until they create it again.
    PAUSED = "paused"


class Alert(db.Model):
    """One member's alert on one widget's headline number (or one of its categories)."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_due", "next_check_at"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: The creator: the figure is computed with their permissions, always.
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    dashboard_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("dashboards.id", ondelete="CASCADE"), index=True
    )
    widget_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("dashboard_widgets.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    #: A category of the widget (a row's label, e.g. "Urgent"); None: its total.
    category: Mapped[str | None] = mapped_column(String(200))
    condition: Mapped[str] = mapped_column(String(16))
    threshold: Mapped[float] = mapped_column(Float)
    interval_minutes: Mapped[int] = mapped_column(Integer, default=15)
    notify_resolved: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Other members who get the mail (account ids as strings), besides the creator.
    recipients: Mapped[list[str]] = mapped_column(JSON, default=list)
    state: Mapped[str] = mapped_column(String(16), default=AlertState.OK)
    paused_reason: Mapped[str | None] = mapped_column(String(200))
    last_value: Mapped[float | None] = mapped_column(Float)
    last_checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Why the last check could not compute the figure (a widget filter that no
    #: longer compiles); None when it could.
    last_error: Mapped[str | None] = mapped_column(Text)
    #: The next check, in UTC; None while paused.
    next_check_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    muted: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The end of a mute; None with ``muted``: until unmuted.
    muted_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()


class AlertEvent(db.Model):
    """A check that changed the alert's state or sent mail, a muted check, a pause."""

    __tablename__ = "alert_events"
    __table_args__ = (Index("ix_alert_events_alert_at", "alert_id", "at"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    alert_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    value: Mapped[float | None] = mapped_column(Float)
    previous: Mapped[float | None] = mapped_column(Float)
    #: The alert's state after the check.
    state: Mapped[str] = mapped_column(String(16))
    #: "fired", "resolved", "paused", "error".
    kind: Mapped[str] = mapped_column(String(16))
    #: Addresses the mail went to; and who was skipped or why nothing was sent.
    sent_to: Mapped[list[str]] = mapped_column(JSON, default=list)
    note: Mapped[str | None] = mapped_column(Text)
