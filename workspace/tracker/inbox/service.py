"""Reads for the inbox and My work (docs/inbox.md): each notification in words with
its task, and one person's open tasks by due date then priority. The writes are
core's (``core/notifications.py``, ``core/subscriptions.py``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime

from flask import url_for
from sqlalchemy import func, select

from workspace.core import notifications, task_lists
from workspace.core.dates import moment
from workspace.core.models import Account, Notification, Org, Project, Task, TaskSubscription
from workspace.extensions import db
from workspace.security.permissions import Access
from workspace.tracker.home import open_work, ordered
from workspace.tracker.task_page.present import relative


@dataclass(frozen=True)
class InboxItem:
    id: uuid.UUID
    kind: str
    summary: str
    task_id: uuid.UUID
    task_key: str
    task_title: str
    url: str
    actor_id: uuid.UUID | None
    actor_name: str | None
    comment_id: uuid.UUID | None
    detail: str | None
    created_at: datetime
    read_at: datetime | None
    #: When, as the task page's timeline says it: "5 minutes ago", and the exact time
    #: in the org's zone.
    ago: str = ""
    exact: str = ""

    @property
    def read(self) -> bool:
        return self.read_at is not None


def _summary(kind: str, actor: str, key: str, detail: str | None) -> str:
    return {
        "mention": f"{actor} mentioned you in {key}",
        "assigned": f"{actor} assigned {key} to you",
        "comment": f"{actor} commented on {key}",
        "state": f"{actor} moved {key} to {detail or 'another state'}",
    }.get(kind, f"{actor} changed {key}")


def present(org: Org, rows: list[Notification]) -> list[InboxItem]:
    """The notifications in words: one query for their tasks, one for the actors."""
    task_ids = {r.task_id for r in rows}
    tasks = (
        {
            t.id: t
            for t in db.session.scalars(
                select(Task)
                .join(Project, Project.id == Task.project_id)
                .where(Task.id.in_(task_ids))
            )
        }
        if task_ids
        else {}
    )
    actor_ids = {r.actor_id for r in rows if r.actor_id}
    names = (
        dict(
            db.session.execute(
                select(Account.id, Account.name).where(Account.id.in_(actor_ids))
            ).all()
        )
        if actor_ids
        else {}
    )
    items = []
    for row in rows:
        task = tasks[row.task_id]
        actor = names.get(row.actor_id) if row.actor_id else None
        url = url_for("task_pages.task", org=org.slug, task_key=task.key)
        if row.comment_id:
            url += f"#comment-{row.comment_id}"
        items.append(
            InboxItem(
                id=row.id,
                kind=row.kind,
                summary=_summary(row.kind, actor or "System", task.key, row.detail),
                task_id=task.id,
                task_key=task.key,
                task_title=task.title,
                url=url,
                actor_id=row.actor_id,
                actor_name=actor,
                comment_id=row.comment_id,
                detail=row.detail,
                created_at=row.created_at,
                read_at=row.read_at,
                ago=relative(row.created_at),
                exact=moment(row.created_at, org.zone),
            )
        )
    return items


def inbox_page(
    access: Access, *, unread_only: bool = False, offset: int = 0, limit: int = 50
) -> tuple[list[InboxItem], int, int]:
    """A page of the caller's inbox in words, how many match, how many are unread."""
    org_id, me = access.org.id, access.account.id
    rows, total = notifications.inbox(
        org_id, me, unread_only=unread_only, offset=offset, limit=limit
    )
    return present(access.org, rows), total, notifications.unread_count(org_id, me)


# -- due dates ---------------------------------------------------------------------------


def overdue_days(task: Task, today: date) -> int:
    """How many days past its due date an open task is (``task_lists.is_overdue``,
    analytics' rule); 0 when it is not overdue."""
    return (today - task.due_date).days if task_lists.is_overdue(task, today) else 0


# -- My work -----------------------------------------------------------------------------

#: My work's sections, in the page's order.
SECTIONS = (
    ("assigned", "Assigned to me"),
    ("created", "Created by me"),
    ("subscribed", "Subscribed"),
)
#: Most tasks one section lists; its count says how many there are in all.
SECTION_LIMIT = 100


def _section_query(access: Access, section: str):
    me, query = access.account.id, open_work(access.org.id)
    if section == "assigned":
        return query.where(Task.assignee_id == me)
    if section == "created":
        return query.where(Task.created_by_id == me)
    return query.where(
        Task.id.in_(
            select(TaskSubscription.task_id).where(
                TaskSubscription.account_id == me,
                TaskSubscription.org_id == access.org.id,
                TaskSubscription.subscribed.is_(True),
            )
        )
    )


@dataclass
class MyWork:
    section: str
    tasks: list[Task]
    counts: dict[str, int] = field(default_factory=dict)


def my_work(access: Access, section: str, limit: int = SECTION_LIMIT) -> MyWork:
    """The open tasks of one section, ordered, and every section's count."""
    counts = {
        name: db.session.scalar(
            select(func.count()).select_from(_section_query(access, name).subquery())
        )
        or 0
        for name, _ in SECTIONS
    }
    tasks = list(db.session.scalars(ordered(_section_query(access, section)).limit(limit)))
    return MyWork(section=section, tasks=tasks, counts=counts)
