"""Who follows a task, and what each person is told about it (docs/inbox.md).

Both tables are written by the task and comment services in the same transaction as
the write that causes them (``core/subscriptions.py``, ``core/notifications.py``), so a
rolled-back change leaves no notification behind and a committed one never misses it.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class NotificationKind(StrEnum):
    MENTION = "mention"
    ASSIGNED = "assigned"
    COMMENT = "comment"
    STATE = "state"


class SubscriptionReason(StrEnum):
    CREATED = "created"
    ASSIGNED = "assigned"
    COMMENTED = "commented"
    MENTIONED = "mentioned"
    #: The person pressed Subscribe (or Unsubscribe: ``subscribed`` false).
    MANUAL = "manual"


class TaskSubscription(db.Model):
    """One person following (or having stopped following) one task."""

    __tablename__ = "task_subscriptions"
    __table_args__ = (
        UniqueConstraint("task_id", "account_id"),
        # My work's "Subscribed" tab: one person's subscriptions in one org.
        Index("ix_task_subscriptions_account", "account_id", "org_id", "subscribed"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    #: Denormalized from the task so "my subscriptions in this org" needs no join.
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    task_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"))
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    #: False after an explicit Unsubscribe: the row stays so that being assigned or
    #: mentioned again does not subscribe the person behind their back.
    subscribed: Mapped[bool] = mapped_column(default=True)
    #: Why the row was last written (:class:`SubscriptionReason`).
    reason: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()


class Notification(db.Model):
    """One line of one person's inbox: what happened to which task, and who did it."""

    __tablename__ = "notifications"
    __table_args__ = (
        # The inbox, newest first, one person in one org.
        Index("ix_notifications_inbox", "recipient_id", "org_id", "created_at"),
        # The unread count in the navigation, on every page: only unread rows indexed.
        Index(
            "ix_notifications_unread",
            "recipient_id",
            "org_id",
            sqlite_where=text("read_at IS NULL"),
            postgresql_where=text("read_at IS NULL"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    recipient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    task_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("tasks.id", ondelete="CASCADE"), index=True
    )
    #: Who acted (a person or an agent); null for the system or a removed account.
    actor_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: :class:`NotificationKind`.
    kind: Mapped[str] = mapped_column(String(16))
    #: The comment a comment or mention notification points at; its text is read from
    #: the comment when shown, so a deleted comment leaves no copy here.
    comment_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("comments.id", ondelete="SET NULL")
    )
    #: For a state change, the new state's name as it was then.
    detail: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = created_at_column()
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
