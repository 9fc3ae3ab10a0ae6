"""A task's own page at ``/o/<org>/tasks/<KEY-123>`` (docs/tasks.md).

Every field is its own small form: HTMX posts it and swaps just that field back (and
the timeline, out of band); without JavaScript the form posts and the page reloads.
A refused value re-renders the field with its message and a 400, so the request's
transaction rolls back. Every change goes through ``tasks.update_task``, which writes
the history with the actor.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from workspace.auth.guards import page
from workspace.core import comments, tasks
from workspace.core.schemas import CommentCreate, CommentPatch, TaskPatch
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access
from workspace.tracker.task_page import present
from workspace.tracker.task_page.markdown import render_markdown

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
bp.add_app_template_filter(present.exact, "task_exact")


@bp.after_request
def _vary(response):
    """The same URL answers a fragment to HTMX and a page otherwise."""
    response.vary.add("HX-Request")
    return response


def _task(access: Access, task_key: str):
    return tasks.get_task_by_key(access.org.id, task_key)


def _back(org: str, task, anchor: str = ""):
    url = url_for("task_pages.task", org=org, task_key=task.key)
    return redirect(f"{url}#{anchor}" if anchor else url, code=303)


def _full_page(access: Access, task, status: int = 200, **extra):
    context = present.page_context(access, task, **extra)
    return render_template("tracker/task/page.html", **context), status


@bp.get("/o/<org>/tasks/<task_key>")
@page(action="task.read")
def task(org: str, task_key: str, access: Access):
    """The task: its fields, description, and the timeline of comments and changes."""
    return _full_page(access, _task(access, task_key))


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


@bp.post("/o/<org>/tasks/<task_key>/fields/<field>")
@page(action="task.write")
def edit_field(org: str, task_key: str, field: str, access: Access):
    """Change one field; answers that field (and the timeline) to HTMX."""
    if field not in present.FIELDS:
        raise NotFoundError("No such field on a task.")
    task = _task(access, task_key)
    try:
        tasks.update_task(task, access.account.id, _change(field, request.form))
    except ServiceError as exc:
        errors = field_errors(exc)
        errors.setdefault(present.FIELDS[field], errors.pop("form", exc.message))
        if htmx:
            context = present.page_context(access, task, errors=errors, rejected=request.form)
            return render_template("tracker/task/_field.html", field=field, **context), 400
        return _full_page(access, task, 400, errors=errors, rejected=request.form)
    if htmx:
        context = present.page_context(access, task)
        return render_template("tracker/task/_field.html", field=field, oob=True, **context)
    return _back(org, task, f"field-{field}")


@bp.post("/o/<org>/tasks/<task_key>/archive")
@page(action="task.write")
def archive(org: str, task_key: str, access: Access):
    """Archive (``archived=true``) or restore (``archived=false``) the task."""
    task = _task(access, task_key)
    form = parse_form(TaskPatch)
    if form.archived is None:
        raise ServiceError("Say whether to archive or restore the task.", field="archived")
    tasks.update_task(task, access.account.id, {"archived": form.archived})
    flash(f"{task.key} {'archived' if form.archived else 'restored'}.", "success")
    return _back(org, task)


@bp.post("/o/<org>/tasks/<task_key>/delete")
@page(action="task.write")
def delete(org: str, task_key: str, access: Access):
    """Delete the task (it leaves every list; its history stays) and go to its project."""
    task = _task(access, task_key)
    tasks.delete_task(task, access.account.id)
    flash(f"{task.key} “{task.title}” was deleted.", "success")
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id), code=303)


# -- comments ---------------------------------------------------------------------------


def _body(model):
    """The comment form's text through its input model; blank says so in words."""
    if not request.form.get("body", "").strip():
        raise ServiceError(comments.EMPTY, field="body")
    return parse_form(model).body


def _discussion(access: Access, task, status: int = 200, **extra):
    """The timeline and the comment form: what every comment action answers HTMX."""
    if not htmx:
        if status >= 400:
            return _full_page(access, task, status, **extra)
        return _back(access.org.slug, task, "discussion")
    context = present.page_context(access, task, **extra)
    return render_template("tracker/task/_discussion.html", **context), status


@bp.post("/o/<org>/tasks/<task_key>/comments")
@page(action="task.comment")
def add_comment(org: str, task_key: str, access: Access):
    task = _task(access, task_key)
    try:
        comments.add_comment(task, access.account.id, _body(CommentCreate))
    except ServiceError as exc:
        errors = field_errors(exc)
        message = errors.get("body") or next(iter(errors.values()))
        return _discussion(
            access, task, 400, comment_errors={"new": message}, draft=request.form.get("body", "")
        )
    return _discussion(access, task)


@bp.post("/o/<org>/tasks/<task_key>/comments/<uuid:comment_id>")
@page(action="task.comment")
def edit_comment(org: str, task_key: str, comment_id: uuid.UUID, access: Access):
    """Edit your own comment (anyone else's: 403)."""
    task = _task(access, task_key)
    comment = comments.get_comment(task, comment_id)
    try:
        comments.edit_comment(comment, task, access.account.id, _body(CommentPatch))
    except ServiceError as exc:
        if exc.status in (403, 409):
            raise
        errors = field_errors(exc)
        message = errors.get("body") or next(iter(errors.values()))
        return _discussion(access, task, 400, comment_errors={str(comment_id): message})
    return _discussion(access, task)


@bp.post("/o/<org>/tasks/<task_key>/comments/<uuid:comment_id>/delete")
@page(action="task.comment")
def delete_comment(org: str, task_key: str, comment_id: uuid.UUID, access: Access):
    """Delete your own comment; an org owner or admin may delete anyone's."""
    task = _task(access, task_key)
    comment = comments.get_comment(task, comment_id)
    comments.delete_comment(comment, task, access.account.id, moderator=access.is_admin)
    return _discussion(access, task)
