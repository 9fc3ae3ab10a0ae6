"""Comments on tasks. Each one also writes a ``comment`` activity row, so the task's
timeline and the org's analytics see discussion as work on the task."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from workspace.core.models import Comment, Task, TaskActivity
from workspace.core.tasks import preview
from workspace.errors import ServiceError
from workspace.extensions import db


def add_comment(task: Task, author_id: uuid.UUID, body: str) -> Comment:
    body = body.strip()
    if not body:
        raise ServiceError("A comment cannot be empty.", field="body")
    comment = Comment(task_id=task.id, author_id=author_id, body=body)
    db.session.add(comment)
    db.session.add(
        TaskActivity(
            org_id=task.org_id,
            task_id=task.id,
            actor_id=author_id,
            field="comment",
            new_value=preview(body),
        )
    )
    db.session.flush()
    return comment


def list_comments(task: Task) -> list[Comment]:
    return list(
        db.session.scalars(
            select(Comment).where(Comment.task_id == task.id).order_by(Comment.created_at)
        )
    )
