"""Comments on tasks. Each one also writes a ``comment`` activity row, so the task's
timeline and the org's analytics see discussion as work on the task; an edit writes
``comment_edited`` and a deletion ``comment_deleted``, each with its actor. The rows
carry the comment's id, never its text: the text lives only in the comment, so an edit
or a deletion leaves no copy of what was said in the history.

Who may change a comment (docs/tasks.md#comments): only its author edits it; its
author or an org owner or admin (moderation) deletes it. A deleted comment stays as a
row with ``deleted_at`` set, so the timeline keeps "comment deleted" in its place.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select

from workspace.core import notifications
from workspace.core.models import Comment, Task, TaskActivity
from workspace.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.types import utcnow

#: What a refused editor or deleter reads.
ONLY_AUTHOR_EDITS = "Only the comment's author can edit it."
ONLY_AUTHOR_DELETES = "Only the comment's author or an org admin can delete it."
ALREADY_DELETED = "This comment was deleted."
EMPTY = "A comment cannot be empty."


def _clean(body: str) -> str:
    body = (body or "").strip()
    if not body:
        raise ServiceError(EMPTY, field="body")
    return body


def _record(task: Task, actor_id: uuid.UUID | None, field: str, new: str | None) -> None:
    db.session.add(
        TaskActivity(
            org_id=task.org_id,
            task_id=task.id,
            actor_id=actor_id,
            field=field,
            new_value=new,
        )
    )


def add_comment(task: Task, author_id: uuid.UUID, body: str) -> Comment:
    body = _clean(body)
    comment = Comment(id=uuid.uuid4(), task_id=task.id, author_id=author_id, body=body)
    db.session.add(comment)
    _record(task, author_id, "comment", str(comment.id))
    db.session.flush()
    notifications.on_comment(task, comment)  # same transaction: docs/inbox.md
    return comment


def list_comments(task: Task) -> list[Comment]:
    """Every comment of the task, oldest first, deleted ones included (marked)."""
    return list(
        db.session.scalars(
            select(Comment)
            .where(Comment.task_id == task.id)
            .order_by(Comment.created_at, Comment.id)
        )
    )


def get_comment(task: Task, comment_id: uuid.UUID) -> Comment:
    """A comment of this task; 404 for one on another task (or none)."""
    comment = db.session.get(Comment, comment_id)
    if comment is None or comment.task_id != task.id:
        raise NotFoundError("No such comment on this task.")
    return comment


def edit_comment(comment: Comment, task: Task, actor_id: uuid.UUID, body: str) -> Comment:
    """Change the text of your own comment; marks it edited (when the text changed)."""
    if comment.deleted_at is not None:
        raise ConflictError(ALREADY_DELETED)
    if comment.author_id != actor_id:
        raise ForbiddenError(ONLY_AUTHOR_EDITS)
    body = _clean(body)
    if body == comment.body:
        return comment
    old_body, comment.body = comment.body, body
    comment.edited_at = utcnow()
    _record(task, actor_id, "comment_edited", str(comment.id))
    db.session.flush()
    notifications.on_comment(task, comment, old_body)  # newly mentioned people only
    return comment


def delete_comment(
    comment: Comment, task: Task, actor_id: uuid.UUID, *, moderator: bool = False
) -> Comment:
    """Soft-delete a comment: by its author, or by a ``moderator`` (an org owner or
    admin, decided by the caller). The text is cleared; the row keeps its place."""
    if comment.deleted_at is not None:
        raise ConflictError(ALREADY_DELETED)
    if comment.author_id != actor_id and not moderator:
        raise ForbiddenError(ONLY_AUTHOR_DELETES)
    comment.deleted_at = utcnow()
    comment.body = ""
    _record(task, actor_id, "comment_deleted", str(comment.id))
    db.session.flush()
    return comment
