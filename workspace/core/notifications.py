"""What each person is told about the tasks they follow: the inbox (docs/inbox.md).

The task and comment services call the ``on_*`` functions in the same transaction as
the write, so people, agents and the system notify the same way and a refused write
notifies nobody. The rules:

- a mention tells the mentioned person (and subscribes them);
- an assignment tells the new assignee (and subscribes them);
- a comment and a state change tell the task's subscribers;
- one write tells each person once, the most direct reason winning (a comment that
  mentions you is a mention, not also a comment);
- nobody is told of their own act, and only active members of the task's org are
  told anything (every member reads every project: docs/architecture.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func, select, update

from workspace.core import mentions, subscriptions
from workspace.core.models import (
    Comment,
    Notification,
    NotificationKind,
    OrgMember,
    SubscriptionReason,
    Task,
)
from workspace.errors import NotFoundError
from workspace.extensions import db
from workspace.types import utcnow

#: The most direct reason first: a person told for several is told for the first.
_PRECEDENCE = (
    NotificationKind.MENTION,
    NotificationKind.ASSIGNED,
    NotificationKind.COMMENT,
    NotificationKind.STATE,
)


class _Batch:
    """The people one write tells, each once, with the most direct reason."""

    def __init__(self, task: Task, actor_id: uuid.UUID | None) -> None:
        self.task, self.actor_id = task, actor_id
        self.told: dict[uuid.UUID, dict[str, Any]] = {}

    def offer(self, recipients: Iterable[uuid.UUID], kind: NotificationKind, **extra: Any) -> None:
        for recipient in recipients:
            held = self.told.get(recipient)
            if held is None or _PRECEDENCE.index(kind) < _PRECEDENCE.index(held["kind"]):
                self.told[recipient] = {"kind": kind, **extra}

    def send(self) -> list[Notification]:
        self.told.pop(self.actor_id, None)  # type: ignore[arg-type]
        if not self.told:
            return []
        members = set(
            db.session.scalars(
                select(OrgMember.account_id).where(
                    OrgMember.org_id == self.task.org_id,
                    OrgMember.active.is_(True),
                    OrgMember.account_id.in_(list(self.told)),
                )
            )
        )
        rows = [
            Notification(
                org_id=self.task.org_id,
                task_id=self.task.id,
                actor_id=self.actor_id,
                recipient_id=recipient,
                **values,
            )
            for recipient, values in self.told.items()
            if recipient in members
        ]
        db.session.add_all(rows)
        return rows


def _mention(batch: _Batch, people: set[uuid.UUID], comment_id: uuid.UUID | None = None) -> None:
    for person in people:
        subscriptions.subscribe(batch.task, person, SubscriptionReason.MENTIONED, by_self=False)
    batch.offer(people, NotificationKind.MENTION, comment_id=comment_id)


def _assign(batch: _Batch, assignee_id: uuid.UUID | None) -> None:
    if assignee_id is None:
        return
    subscriptions.subscribe(batch.task, assignee_id, SubscriptionReason.ASSIGNED, by_self=False)
    batch.offer([assignee_id], NotificationKind.ASSIGNED)


def on_task_created(task: Task, actor_id: uuid.UUID | None) -> None:
    """The creator follows the task; its assignee and anyone its description mentions
    are told."""
    subscriptions.subscribe(task, actor_id, SubscriptionReason.CREATED, by_self=True)
    batch = _Batch(task, actor_id)
    _assign(batch, task.assignee_id)
    _mention(batch, mentions.mentioned(task.org_id, task.description))
    batch.send()


def on_task_updated(
    task: Task, actor_id: uuid.UUID | None, fields: Sequence[Any], old_description: str
) -> None:
    """After :func:`workspace.core.tasks.update_task` wrote ``fields`` (its activity
    rows): a new assignee, new mentions in the description, a state change."""
    changed = {row.field: row for row in fields}
    if not changed:
        return
    batch = _Batch(task, actor_id)
    if "assignee_id" in changed:
        _assign(batch, task.assignee_id)
    if "description" in changed:
        _mention(batch, mentions.newly_mentioned(task.org_id, old_description, task.description))
    if "state" in changed:
        batch.offer(
            subscriptions.subscribers(task),
            NotificationKind.STATE,
            detail=(changed["state"].new_value or "")[:200],
        )
    batch.send()


def on_comment(task: Task, comment: Comment, old_body: str | None = None) -> None:
    """A new comment (``old_body`` None) tells the subscribers and whoever it mentions;
    an edit tells only the people it newly mentions."""
    actor_id = comment.author_id
    batch = _Batch(task, actor_id)
    if old_body is None:
        subscriptions.subscribe(task, actor_id, SubscriptionReason.COMMENTED, by_self=True)
        _mention(batch, mentions.mentioned(task.org_id, comment.body), comment.id)
        batch.offer(
            subscriptions.subscribers(task), NotificationKind.COMMENT, comment_id=comment.id
        )
    else:
        people = mentions.newly_mentioned(task.org_id, old_body, comment.body)
        _mention(batch, people, comment.id)
    batch.send()


# -- the inbox ---------------------------------------------------------------------------


def _mine(org_id: uuid.UUID, account_id: uuid.UUID) -> list[Any]:
    """One person's notifications in one org, on tasks that still exist."""
    return [
        Notification.org_id == org_id,
        Notification.recipient_id == account_id,
        Notification.task_id.in_(select(Task.id).where(Task.deleted_at.is_(None))),
    ]


def unread_count(org_id: uuid.UUID, account_id: uuid.UUID) -> int:
    return (
        db.session.scalar(
            select(func.count()).where(*_mine(org_id, account_id), Notification.read_at.is_(None))
        )
        or 0
    )


def inbox(
    org_id: uuid.UUID,
    account_id: uuid.UUID,
    *,
    unread_only: bool = False,
    offset: int = 0,
    limit: int = 50,
) -> tuple[list[Notification], int]:
    """A page of the inbox, newest first, and how many there are in all."""
    conditions = _mine(org_id, account_id)
    if unread_only:
        conditions.append(Notification.read_at.is_(None))
    total = db.session.scalar(select(func.count()).where(*conditions)) or 0
    rows = db.session.scalars(
        select(Notification)
        .where(*conditions)
        .order_by(Notification.created_at.desc(), Notification.id.desc())
        .offset(offset)
        .limit(limit)
    ).all()
    return list(rows), total


def get_notification(
    org_id: uuid.UUID, account_id: uuid.UUID, notification_id: uuid.UUID
) -> Notification:
    """One of the caller's notifications; anyone else's (or none) is a 404."""
    row = db.session.get(Notification, notification_id)
    if row is None or row.org_id != org_id or row.recipient_id != account_id:
        raise NotFoundError("No such notification in your inbox.")
    return row


def mark_read(notification: Notification, read: bool = True) -> Notification:
    """Mark one notification read (or unread again)."""
    if read and notification.read_at is None:
        notification.read_at = utcnow()
    elif not read:
        notification.read_at = None
    db.session.flush()
    return notification


def mark_all_read(
    org_id: uuid.UUID, account_id: uuid.UUID, task_id: uuid.UUID | None = None
) -> int:
    """Mark every unread notification of the caller in this org read, or with
    ``task_id`` those about that task (they opened it, so what the notifications
    pointed at is seen, as Linear and GitHub do); how many. Reads the unread index."""
    about = [Notification.task_id == task_id] if task_id is not None else []
    result = db.session.execute(
        update(Notification)
        .where(
            Notification.org_id == org_id,
            Notification.recipient_id == account_id,
            Notification.read_at.is_(None),
            *about,
        )
        .values(read_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return result.rowcount or 0
