"""The tracker's HTML pages: org home, projects, a project's tasks, settings.

Full pages include the partials that HTMX requests get alone (contact-app style);
forms keep action and method so they work without JavaScript. Every form goes
through the JSON API's input model (``parse_form``); a refused form re-renders with
a 4xx status, so the request's transaction rolls back.
"""

from __future__ import annotations

import uuid

from flask import (
    Blueprint,
    Response,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from workspace.auth.guards import page
from workspace.auth.sessions import current_account
from workspace.core import accounts, orgs, projects, tasks
from workspace.core.models import Priority, StateCategory, TaskKind
from workspace.core.schemas import OrgCreate, ProjectCreate, TaskCreate, TaskPatch
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access, can
from workspace.tracker.home import task_counts

bp = Blueprint("core_pages", __name__)

PAGE_SIZE = 50


@bp.route("/orgs/new", methods=["GET", "POST"])
@page()
def new_org():
    """Create an organization; the creator becomes its owner."""
    if request.method == "GET":
        return render_template("tracker/new_org.html", errors={}, name="", slug="")
    try:
        form = parse_form(OrgCreate)
        org = orgs.create_org(form.name, current_account(), form.slug)
    except ServiceError as exc:
        return render_template(
            "tracker/new_org.html",
            errors=field_errors(exc),
            name=request.form.get("name", ""),
            slug=request.form.get("slug", ""),
        ), exc.status
    flash(f"{org.name} is ready.", "success")
    return redirect(url_for("core_pages.org_home", org=org.slug))


@bp.get("/o/<org>/")
@page(action="org.read")
def org_home(org: str, access: Access):
    mine, _ = tasks.list_tasks(
        access.org.id, tasks.TaskFilter(assignee_id=access.account.id, open_only=True), limit=10
    )
    return render_template(
        "tracker/org_home.html",
        nav_active="home",
        counts=task_counts(access.org.id),
        project_list=projects.list_projects(access.org.id),
        my_tasks=mine,
        members=accounts.list_members(access.org.id),
    )


def _projects_page(access: Access, errors: dict[str, str] | None = None, status: int = 200):
    return render_template(
        "tracker/projects.html",
        nav_active="projects",
        errors=errors or {},
        form=request.form if errors else {},
        project_list=projects.list_projects(access.org.id),
    ), status


@bp.get("/o/<org>/projects", endpoint="projects")
@page(action="project.read")
def projects_page(org: str, access: Access):
    return _projects_page(access)


@bp.post("/o/<org>/projects")
@page(action="project.create")
def create_project(org: str, access: Access):
    try:
        form = parse_form(ProjectCreate)
        project = projects.create_project(access.org.id, access.account.id, **form.model_dump())
    except ServiceError as exc:
        return _projects_page(access, field_errors(exc), exc.status)
    return redirect(url_for("core_pages.project", org=org, project_id=project.id))


def _task_page_context(access: Access, project) -> dict:
    return {
        "project": project,
        "states": projects.list_states(project.id),
        "members": {m.account_id: m.account for m in accounts.list_members(access.org.id)},
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", project.id),
    }


def _page_args() -> tuple[int, str | None]:
    """Paging and the category tab; a hand-edited value falls back to the default."""
    try:
        offset = min(max(0, int(request.args.get("offset", 0))), tasks.MAX_OFFSET)
    except ValueError:
        offset = 0
    category = request.args.get("category") or None
    if category not in (None, *StateCategory.__members__.values()):
        category = None
    return offset, category


def _project_page(access: Access, proj, *, errors: dict[str, str] | None = None, status=200):
    offset, category = _page_args()
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
        "errors": errors or {},
    }
    if htmx and offset:
        return render_template("tracker/_task_rows.html", **context), status
    return render_template("tracker/project.html", **context), status


@bp.get("/o/<org>/projects/<uuid:project_id>")
@page(action="project.read")
def project(org: str, project_id: uuid.UUID, access: Access):
    """A project's tasks, newest first, 50 at a time."""
    return _project_page(access, projects.get_project(access.org.id, project_id))


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks")
@page(action="task.write")
def create_task(org: str, project_id: uuid.UUID, access: Access):
    proj = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(TaskCreate)
        task = tasks.create_task(proj, access.account.id, **form.model_dump())
    except ServiceError as exc:
        if htmx:
            # The page's error flash shows a plain-text body as it is.
            message = " ".join(field_errors(exc).values())
            return Response(message, status=422, mimetype="text/plain")
        return _project_page(access, proj, errors=field_errors(exc), status=422)
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, proj)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=proj.id))


@bp.post("/o/<org>/tasks/<uuid:task_id>/state")
@page(action="task.write")
def change_state(org: str, task_id: uuid.UUID, access: Access):
    """Move a task to another state; answers the updated row to HTMX."""
    task = tasks.get_task(access.org.id, task_id)
    form = parse_form(TaskPatch)
    if form.state_id is None:
        raise ServiceError("Choose a state.", field="state_id")
    tasks.update_task(task, access.account.id, {"state_id": form.state_id})
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, task.project)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id))
