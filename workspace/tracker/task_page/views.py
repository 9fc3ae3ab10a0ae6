"""A task's own page at ``/o/<org>/tasks/<KEY-123>`` (docs/tasks.md).

Every field is its own small form: HTMX posts it and swaps just that field back (and
the timeline, out of band); without JavaScript the form posts and the page reloads.
Title and description open in place (static/js/task.js); without JavaScript their Edit
links load the page with that form open (``?edit=title``), and the description's
Preview posts to :func:`preview`, which renders the draft without saving it.
A refused value re-renders the field with its message and a 400, so the request's
transaction rolls back. Every change goes through ``tasks.update_task``, which writes
the history with the actor.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from workspace.auth.guards import page
from workspace.core import comments, notifications, tasks
from workspace.core.models import Project, Task
from workspace.core.schemas import CommentForm, TaskPatch
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access, can
from workspace.tracker.task_page import present
from workspace.tracker.task_page.markdown import render_markdown
from workspace.tracker.task_page.schemas import DescriptionPreview, RestoreForm, TaskPageQuery

bp = Blueprint("task_pages", __name__)

#: Fields an empty value clears; the others refuse it with these words.
CLEARABLE = ("assignee_id", "cycle_id", "module_id", "due_date")
BLANK = {
    "title": "A task needs a title.",
    "state_id": "Choose a state.",
    "priority": "Choose a priority.",
    "kind": "Choose a kind.",
}

bp.add_app_template_filter(render_markdown, "task_markdown")
bp.add_app_template_filter(present.relative, "task_ago")


@bp.after_request
def _vary(response):
    """The same URL answers a fragment to HTMX and a page otherwise."""
    response.vary.add("HX-Request")
    return response


def _back(org: str, task: Task, anchor: str = ""):
    url = url_for("task_pages.task", org=org, task_key=task.key)
    return redirect(f"{url}#{anchor}" if anchor else url, code=303)


def _full_page(access: Access, task: Task, status: int = 200, **extra):
    context = present.page_context(access, task, **extra)
    return render_template("tracker/task/page.html", **context), status


@bp.get("/o/<org>/tasks/<task_key>")
@page(action="task.read", form=TaskPageQuery)
def task(task: Task, access: Access, form: TaskPageQuery):
    """The task: its fields, description, and the timeline of comments and changes;
    ``?edit=title`` or ``?edit=description`` shows that field's form open. Opening it
    marks the reader's notifications about it read (docs/inbox.md)."""
    notifications.mark_all_read(access.org.id, access.account.id, task.id)
    return _full_page(access, task, editing=form.edit)


def _change(field: str, form: MultiDict) -> dict:
    """The one change a field's form asks for, through the API's input model."""
    name = present.FIELDS[field]
    raw = form.get(name, "")
    if not raw.strip():
        if name in CLEARABLE:
            return {name: None}
        if name == "description":
            return {"description": ""}
        raise ServiceError(BLANK[name], field=name)
    patch = parse_form(TaskPatch, MultiDict({name: raw}))
    return patch.model_dump(include={name})


def _field_refused(error: ServiceError, access: Access, task: Task, field: str):
    if field not in present.FIELDS:
        raise error
    errors = field_errors(error)
    errors.setdefault(present.FIELDS[field], errors.pop("form", error.message))
    if htmx:
        context = present.page_context(access, task, errors=errors, rejected=request.form)
        return render_template("tracker/task/_field.html", field=field, **context), 400
    return _full_page(access, task, 400, errors=errors, rejected=request.form)


@bp.post("/o/<org>/tasks/<task_key>/fields/<field>")
@page(action="task.write", invalid=_field_refused)
def edit_field(org: str, task: Task, field: str, access: Access):
    """Change one field; answers that field (and the timeline) to HTMX."""
    if field not in present.FIELDS:
        raise NotFoundError("No such field on a task.")
    tasks.update_task(task, access.account.id, _change(field, request.form))
    if htmx:
        context = present.page_context(access, task)
        return render_template("tracker/task/_field.html", field=field, oob=True, **context)
    return _back(org, task, f"field-{field}")


def _preview_refused(error: ServiceError, access: Access, task: Task):
    """Too long a draft: the message where the preview would be (HTMX), or the page
    with the draft kept and the message under the box."""
    message = next(iter(field_errors(error).values()), error.message)
    if htmx:
        return render_template("tracker/task/_preview.html", error=message), 400
    errors = {"description": message}
    return _full_page(
        access, task, 400, editing="description", errors=errors, rejected=request.form
    )


@bp.post("/o/<org>/tasks/<task_key>/preview")
@page(action="task.write", form=DescriptionPreview, invalid=_preview_refused)
def preview(task: Task, form: DescriptionPreview, access: Access):
    """The description as it would read once saved, rendered by the same safe Markdown
    renderer, and nothing saved. HTMX gets the rendered part alone; without JavaScript
    the page comes back with the draft still in the box and the preview under it."""
    if htmx:
        return render_template("tracker/task/_preview.html", text=form.description)
    draft = {"description": form.description}
    return _full_page(access, task, editing="description", rejected=draft, preview=form.description)


@bp.post("/o/<org>/tasks/<task_key>/archive")
@page(action="task.write", form=TaskPatch)
def archive(org: str, task: Task, form: TaskPatch, access: Access):
    """Archive (``archived=true``) or restore (``archived=false``) the task."""
    if form.archived is None:
        raise ServiceError("Say whether to archive or restore the task.", field="archived")
    tasks.update_task(task, access.account.id, {"archived": form.archived})
    if form.archived:  # Undo, as a delete has: the same form with archived=false
        undo = url_for("task_pages.archive", org=org, task_key=task.key)
        _flash_undo(f"{task.key} archived.", undo, archived="false")
    else:
        flash(f"{task.key} restored.", "success")
    return _back(org, task)


@bp.post("/o/<org>/tasks/<task_key>/delete")
@page(action="task.write")
def delete(org: str, task: Task, access: Access):
    """Delete the task (it leaves every list; its history stays) and go to its project."""
    tasks.delete_task(task, access.account.id)
    undo = url_for("task_pages.restore", org=org, project_id=task.project_id, task_id=task.id)
    _flash_undo(f"{task.key} “{task.title}” was deleted.", undo)
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id), code=303)


def _flash_undo(text: str, action: str, **fields: str) -> None:
    """A success flash with an Undo button: a POST to ``action`` with ``fields``
    (templates/base.html renders a message that is a mapping so)."""
    flash({"text": text, "action": action, "label": "Undo", "fields": fields}, "success")


DELETED = "/o/<org>/projects/<uuid:project_id>/deleted-tasks"


@bp.get(DELETED)
@page(action="task.read")
def deleted(project: Project, access: Access):
    """The project's deleted tasks, each with Restore for whoever may change tasks."""
    return render_template(
        "tracker/deleted_tasks.html",
        project=project,
        deleted=tasks.deleted_tasks(project),
        can_restore=can(access, "task.write", project.id),
    )


@bp.post(DELETED + "/<uuid:task_id>/restore")
@page(action="task.write", form=RestoreForm)
def restore(org: str, project: Project, task_id: uuid.UUID, access: Access, form: RestoreForm):
    """A deleted task back where it was (the delete's Undo, the list's Restore); one
    restored already (a second Undo, a teammate first) is said so, not a 404."""
    task, restored = tasks.restore_task(project, task_id, access.account.id)
    if restored:
        flash(f"{task.key} “{task.title}” was restored.", "success")
    else:
        flash(f"{task.key} “{task.title}” is not deleted: it was restored already.", "info")
    if form.back == "list":
        return redirect(url_for("task_pages.deleted", org=org, project_id=project.id), 303)
    return _back(org, task)


@bp.errorhandler(NotFoundError)
def task_not_found(error: NotFoundError):
    """A deleted task's page (a bookmark, an old inbox link) says it was deleted and
    when, with Restore for whoever may, instead of a bare 404; any other 404 as on
    every page. Only for a member of the org (the gate set ``g.access`` once it knew
    that), so a task's existence never leaks outside it."""
    access = g.get("access")
    key = (request.view_args or {}).get("task_key")
    if request.endpoint == "task_pages.task" and access is not None and key:
        try:
            task = tasks.get_task_by_key(access.org.id, key, deleted=True)
        except NotFoundError:
            task = None
        if task is not None:
            writer = can(access, "task.write", task.project_id)
            page = render_template("tracker/task/deleted.html", task=task, can_restore=writer)
            return page, 404
    return render_template("error.html", code=error.status, message=error.message), error.status


# -- comments ---------------------------------------------------------------------------


def _discussion(access: Access, task: Task, status: int = 200, **extra):
    """The timeline and the comment form: what every comment action answers HTMX."""
    if not htmx:
        if status >= 400:
            return _full_page(access, task, status, **extra)
        return _back(access.org.slug, task, "discussion")
    # Out of band, the Subscribe button: commenting subscribes the commenter.
    context = present.page_context(access, task, **extra)
    return render_template("tracker/task/_discussion.html", follow_oob=True, **context), status


def _comment_refused(
    error: ServiceError, access: Access, task: Task, comment_id: uuid.UUID | None = None
):
    """The discussion again with the message under the box it belongs to; an edit of
    someone else's comment (403) or of a deleted one (409) is no typing mistake."""
    if comment_id is not None and error.status in (403, 404, 409):
        raise error
    errors = field_errors(error)
    message = errors.get("body") or next(iter(errors.values()))
    # What was typed goes back in its box: a refused edit showed the saved text again.
    draft = request.form.to_dict().get("body", "")
    if comment_id is not None:
        cid = str(comment_id)
        return _discussion(
            access, task, 400, comment_errors={cid: message}, comment_drafts={cid: draft}
        )
    return _discussion(access, task, 400, comment_errors={"new": message}, draft=draft)


@bp.post("/o/<org>/tasks/<task_key>/comments")
@page(action="task.comment", form=CommentForm, invalid=_comment_refused)
def add_comment(task: Task, form: CommentForm, access: Access):
    comments.add_comment(task, access.account.id, form.body)
    return _discussion(access, task)


@bp.post("/o/<org>/tasks/<task_key>/comments/<uuid:comment_id>")
@page(action="task.comment", form=CommentForm, invalid=_comment_refused)
def edit_comment(task: Task, comment_id: uuid.UUID, form: CommentForm, access: Access):
    """Edit your own comment (anyone else's: 403)."""
    comment = comments.get_comment(task, comment_id)
    comments.edit_comment(comment, task, access.account.id, form.body)
    return _discussion(access, task)


@bp.post("/o/<org>/tasks/<task_key>/comments/<uuid:comment_id>/delete")
@page(action="task.comment")
def delete_comment(task: Task, comment_id: uuid.UUID, access: Access):
    """Delete your own comment; an org owner or admin may delete anyone's."""
    comment = comments.get_comment(task, comment_id)
    comments.delete_comment(comment, task, access.account.id, moderator=access.is_admin)
    return _discussion(access, task)
