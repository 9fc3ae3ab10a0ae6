"""A task's history and comments in the JSON API (docs/api.md), beside the task page
that shows them. The gate loads the org and the task in the URL (404 when not in this
org) and checks the action, as everywhere."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core import comments, tasks
from workspace.core.models import Project, Task
from workspace.core.schemas import ActivityOut, CommentCreate, CommentOut, CommentPatch, TaskOut
from workspace.security.permissions import Access
from workspace.tracker.task_page.schemas import DeletedTaskOut

bp = api_blueprint("task_page_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("/tasks/<uuid:task_id>/activity")
@operation(
    "Read a task's history, oldest first",
    tag="tasks",
    action="task.read",
    response=list[ActivityOut],
)
def task_activity(task: Task, access: Access):
    return [ActivityOut.model_validate(a) for a in tasks.task_activity(task)]


@bp.get("/tasks/<uuid:task_id>/comments")
@operation(
    "Read a task's comments, oldest first (deleted ones marked, without their text)",
    tag="tasks",
    action="task.read",
    response=list[CommentOut],
)
def list_comments(task: Task, access: Access):
    return [CommentOut.model_validate(c) for c in comments.list_comments(task)]


@bp.post("/tasks/<uuid:task_id>/comments")
@operation(
    "Comment on a task",
    tag="tasks",
    action="task.comment",
    body=CommentCreate,
    response=CommentOut,
    status=201,
)
def add_comment(task: Task, access: Access, body: CommentCreate):
    comment = comments.add_comment(task, access.account.id, body.body)
    return CommentOut.model_validate(comment)


@bp.patch("/tasks/<uuid:task_id>/comments/<uuid:comment_id>")
@operation(
    "Edit your own comment",
    tag="tasks",
    action="task.comment",
    body=CommentPatch,
    response=CommentOut,
    errors=(400, 401, 403, 404, 409),
)
def edit_comment(task: Task, comment_id: uuid.UUID, access: Access, body: CommentPatch):
    """Only the author edits a comment (403 for anyone else, 409 once it is deleted)."""
    comment = comments.edit_comment(
        comments.get_comment(task, comment_id), task, access.account.id, body.body
    )
    return CommentOut.model_validate(comment)


@bp.delete("/tasks/<uuid:task_id>/comments/<uuid:comment_id>")
@operation(
    "Delete a comment (yours; an org owner or admin may delete any)",
    tag="tasks",
    action="task.comment",
    status=204,
    errors=(401, 403, 404, 409),
)
def delete_comment(task: Task, comment_id: uuid.UUID, access: Access):
    """The comment keeps its place in the timeline as "comment deleted"."""
    comments.delete_comment(
        comments.get_comment(task, comment_id), task, access.account.id, moderator=access.is_admin
    )


@bp.get("/projects/<uuid:project_id>/deleted-tasks")
@operation(
    "List a project's deleted tasks, the most recently deleted first (at most 100)",
    tag="tasks",
    action="task.read",
    response=list[DeletedTaskOut],
)
def list_deleted_tasks(project: Project, access: Access):
    return [DeletedTaskOut.of(task, by) for task, by in tasks.deleted_tasks(project)]


@bp.post("/projects/<uuid:project_id>/deleted-tasks/<uuid:task_id>/restore")
@operation(
    "Restore a deleted task: back in every list and count, with its key and history",
    tag="tasks",
    action="task.write",
    response=TaskOut,
)
def restore_task(project: Project, task_id: uuid.UUID, access: Access):
    """Restoring a task that is live already answers it unchanged (a second Undo)."""
    task, _ = tasks.restore_task(project, task_id, access.account.id)
    return TaskOut.model_validate(task)
