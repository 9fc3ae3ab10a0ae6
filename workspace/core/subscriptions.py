"""Who follows a task (docs/inbox.md#subscriptions).

You follow a task you created, are assigned, commented on or were mentioned in, and
you can stop (and start again) with the task page's button or the API. Your own acts
(creating, commenting, pressing Subscribe) always subscribe you; what others do to you
(assigning you, mentioning you) subscribes you only if you never unsubscribed: an
explicit Unsubscribe is kept as a row with ``subscribed`` false for that reason.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select

from workspace.core.models import SubscriptionReason, Task, TaskSubscription
from workspace.extensions import db


def _row(task_id: uuid.UUID, account_id: uuid.UUID) -> TaskSubscription | None:
    return db.session.scalar(
        select(TaskSubscription).where(
            TaskSubscription.task_id == task_id, TaskSubscription.account_id == account_id
        )
    )


def subscribe(task: Task, account_id: uuid.UUID | None, reason: str, *, by_self: bool) -> None:
    """Subscribe ``account_id`` to ``task`` because of ``reason``. ``by_self``: the
    person's own act, which also undoes an earlier Unsubscribe."""
    if account_id is None:
        return
    row = _row(task.id, account_id)
    if row is None:
        db.session.add(
            TaskSubscription(
                org_id=task.org_id,
                task_id=task.id,
                account_id=account_id,
                subscribed=True,
                reason=reason,
            )
        )
        db.session.flush()
    elif by_self and not row.subscribed:
        row.subscribed, row.reason = True, reason


def set_subscribed(task: Task, account_id: uuid.UUID, subscribed: bool) -> bool:
    """The Subscribe / Unsubscribe button: returns the new state."""
    row = _row(task.id, account_id)
    if row is None:
        row = TaskSubscription(
            org_id=task.org_id, task_id=task.id, account_id=account_id, subscribed=subscribed
        )
        db.session.add(row)
    row.subscribed, row.reason = subscribed, SubscriptionReason.MANUAL
    db.session.flush()
    return subscribed


def is_subscribed(task_id: uuid.UUID, account_id: uuid.UUID) -> bool:
    row = _row(task_id, account_id)
    return row is not None and row.subscribed


def subscribers(task: Task) -> list[uuid.UUID]:
    """Everyone following ``task`` now."""
    return list(
        db.session.scalars(
            select(TaskSubscription.account_id).where(
                TaskSubscription.task_id == task.id, TaskSubscription.subscribed.is_(True)
            )
        )
    )
