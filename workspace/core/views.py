"""The core HTML pages: org home, projects, a project's tasks, tokens, settings.

Full pages include the partials that HTMX requests get alone (contact-app style);
forms keep action and method so they work without JavaScript.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import func, select

from workspace.auth import api_tokens
from workspace.auth.guards import login_required, page_access
from workspace.auth.sessions import current_account
from workspace.core import accounts, events, orgs, projects, tasks
from workspace.core.models import Priority, StateCategory, Task, TaskKind
from workspace.errors import ServiceError
from workspace.extensions import db, htmx
from workspace.security.permissions import can

bp = Blueprint("core_pages", __name__)

PAGE_SIZE = 50


@bp.route("/orgs/new", methods=["GET", "POST"])
@login_required
def new_org():
    """Create an organization; the creator becomes its owner."""
    error, name, slug = None, "", ""
    if request.method == "POST":
        name = request.form.get("name", "").strip()
        slug = request.form.get("slug", "").strip().lower() or None
        try:
            org = orgs.create_org(name, current_account(), slug)
            db.session.commit()
            flash(f"{org.name} is ready.", "success")
            return redirect(url_for("core_pages.org_home", org=org.slug))
        except ServiceError as exc:
            db.session.rollback()
            error = exc.message
    return render_template("core/new_org.html", error=error, name=name, slug=slug or "")


@bp.get("/o/<org>/")
@login_required
def org_home(org: str):
    access = page_access(org)
    counts = dict(
        db.session.execute(
            select(Task.state_category, func.count())
            .where(
                Task.org_id == access.org.id, Task.deleted_at.is_(None), Task.archived_at.is_(None)
            )
            .group_by(Task.state_category)
        ).all()
    )
    mine, _ = tasks.list_tasks(
        access.org.id, tasks.TaskFilter(assignee_id=access.account.id, open_only=True), limit=10
    )
    return render_template(
        "core/org_home.html",
        nav_active="home",
        counts=counts,
        open_count=sum(
            counts.get(c, 0)
            for c in (StateCategory.BACKLOG, StateCategory.UNSTARTED, StateCategory.STARTED)
        ),
        project_list=projects.list_projects(access.org.id),
        my_tasks=mine,
        members=accounts.list_members(access.org.id),
    )


@bp.route("/o/<org>/projects", methods=["GET", "POST"], endpoint="projects")
@login_required
def projects_page(org: str):
    access = page_access(org)
    error = None
    if request.method == "POST":
        try:
            name = request.form.get("name", "").strip()[:200]
            if not name:
                raise ServiceError("Give the project a name.", field="name")
            project = projects.create_project(
                access.org.id,
                access.account.id,
                name,
                request.form.get("identifier", "").strip() or None,
                request.form.get("description", "").strip()[:2000],
            )
            db.session.commit()
            return redirect(url_for("core_pages.project", org=org, project_id=project.id))
        except ServiceError as exc:
            db.session.rollback()
            error = exc.message
    return render_template(
        "core/projects.html",
        nav_active="projects",
        error=error,
        project_list=projects.list_projects(access.org.id),
    )


def _task_page_context(access, project):
    return {
        "project": project,
        "states": projects.list_states(project.id),
        "members": {m.account_id: m.account for m in accounts.list_members(access.org.id)},
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", project.id),
    }


@bp.get("/o/<org>/projects/<uuid:project_id>")
@login_required
def project(org: str, project_id: uuid.UUID):
    """A project's tasks, newest first, 50 at a time."""
    access = page_access(org)
    proj = projects.get_project(access.org.id, project_id)
    try:
        offset = min(max(0, int(request.args.get("offset", 0))), tasks.MAX_OFFSET)
    except ValueError:
        offset = 0
    category = request.args.get("category") or None
    if category not in (None, *StateCategory.__members__.values()):
        category = None
    rows, total = tasks.list_tasks(
        access.org.id,
        tasks.TaskFilter(project_id=proj.id, state_category=category),
        limit=PAGE_SIZE,
        offset=offset,
    )
    context = _task_page_context(access, proj) | {
        "tasks": rows,
        "total": total,
        "offset": offset,
        "next_offset": offset + PAGE_SIZE,
        "category": category,
        "nav_active": "projects",
    }
    if htmx and offset:
        return render_template("core/_task_rows.html", **context)
    return render_template("core/project.html", **context)


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks")
@login_required
def create_task(org: str, project_id: uuid.UUID):
    access = page_access(org)
    proj = projects.get_project(access.org.id, project_id)
    if not can(access, "task.write", proj.id):
        abort(403, "You need the member role in this project to add tasks.")
    form = request.form
    try:
        title = form.get("title", "").strip()
        if not title:
            raise ServiceError("Give the task a title.", field="title")
        task = tasks.create_task(
            proj,
            access.account.id,
            title=title[:500],
            state_id=_uuid_or_none(form.get("state_id")),
            priority=form.get("priority") or Priority.NONE,
            kind=form.get("kind") or TaskKind.TASK,
            assignee_id=_uuid_or_none(form.get("assignee_id")),
        )
        db.session.commit()
    except ServiceError as exc:
        db.session.rollback()
        if htmx:
            abort(422, exc.message)
        flash(exc.message, "error")
        return redirect(url_for("core_pages.project", org=org, project_id=proj.id))
    if htmx:
        return render_template("core/_task_row.html", task=task, **_task_page_context(access, proj))
    return redirect(url_for("core_pages.project", org=org, project_id=proj.id))


@bp.post("/o/<org>/tasks/<uuid:task_id>/state")
@login_required
def change_state(org: str, task_id: uuid.UUID):
    """Move a task to another state; answers the updated row to HTMX."""
    access = page_access(org)
    task = tasks.get_task(access.org.id, task_id)
    if not can(access, "task.write", task.project_id):
        abort(403, "You need the member role in this project to change its tasks.")
    state_id = _uuid_or_none(request.form.get("state_id"))
    if state_id is None:
        abort(400, "Choose a state.")
    try:
        tasks.update_task(task, access.account.id, {"state_id": state_id})
        db.session.commit()
    except ServiceError as exc:
        db.session.rollback()
        abort(400, exc.message)
    if htmx:
        return render_template(
            "core/_task_row.html", task=task, **_task_page_context(access, task.project)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id))


@bp.route("/o/<org>/tokens", methods=["GET", "POST"])
@login_required
def tokens(org: str):
    """Personal access tokens for the JSON API; a new one is shown once."""
    access = page_access(org)
    new_token = None
    if request.method == "POST":
        name = (request.form.get("name") or "").strip()[:100] or "API token"
        _, new_token = api_tokens.create_token(access.account, access.org, name)
    return render_template(
        "core/tokens.html",
        nav_active="tokens",
        new_token=new_token,
        token_list=api_tokens.list_tokens(access.account.id, access.org.id),
    )


@bp.post("/o/<org>/tokens/<uuid:token_id>/revoke")
@login_required
def revoke_token(org: str, token_id: uuid.UUID):
    access = page_access(org)
    if not api_tokens.revoke_token(access.account.id, access.org.id, token_id):
        abort(404, "No such token.")
    flash("Token revoked. Anything using it stops working now.", "success")
    return redirect(url_for("core_pages.tokens", org=org))


@bp.get("/o/<org>/settings")
@login_required
def settings(org: str):
    page_access(org, "org.manage_settings")
    return render_template(
        "settings/general.html", nav_active="settings", settings_active="core_pages.settings"
    )


@bp.get("/o/<org>/settings/members")
@login_required
def settings_members(org: str):
    access = page_access(org, "org.manage_members")
    return render_template(
        "settings/members.html",
        nav_active="settings",
        settings_active="core_pages.settings_members",
        members=accounts.list_members(access.org.id, include_inactive=True),
    )


@bp.get("/o/<org>/settings/events", endpoint="events")
@login_required
def events_page(org: str):
    access = page_access(org, "org.manage_settings")
    return render_template(
        "settings/events.html",
        nav_active="settings",
        settings_active="core_pages.events",
        event_list=events.list_events(access.org.id, limit=200),
    )


def _uuid_or_none(value: str | None) -> uuid.UUID | None:
    if not value:
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        abort(400, "That reference is not valid; reload the page and try again.")
