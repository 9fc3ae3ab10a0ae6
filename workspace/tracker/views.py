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
from workspace.core import accounts, orgs, projects, task_lists, tasks, workflow
from workspace.core.models import Priority, TaskKind
from workspace.core.schemas import OrgCreate, ProjectCreate, TaskCreate, TaskPatch
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access, can
from workspace.tracker import listing
from workspace.tracker.home import task_counts

bp = Blueprint("core_pages", __name__)


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
    mine, _ = task_lists.list_tasks(
        access.org.id,
        task_lists.TaskFilter(assignee_id=access.account.id, open_only=True),
        limit=10,
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
        "states": workflow.list_states(project.id),
        "members": {m.account_id: m.account for m in accounts.list_members(access.org.id)},
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", project.id),
    }


def _project_page(
    access: Access,
    proj,
    query: listing.ListPageQuery | None = None,
    *,
    errors: dict[str, str] | None = None,
    status: int = 200,
    partial: str | None = None,
):
    """The list (or board) of ``proj`` for the request's query string. A search or
    PQL filter that cannot run shows its message next to its box, with a 400."""
    errors = dict(errors or {})
    if query is None:
        query, query_errors = listing.parse_list_query(request.args)
        errors |= query_errors
    result = listing.TaskList(query=query, states=workflow.list_states(proj.id))
    if not query_errors_in(errors):
        try:
            result = listing.run_list(access, proj, query)
        except ServiceError as exc:
            errors |= {exc.field or "form": exc.message}
    if query_errors_in(errors):
        status = max(status, 400)
    context = _task_page_context(access, proj) | {
        "listing": result,
        "query": query,
        "tasks": result.rows,
        "total": result.total,
        "offset": query.offset,
        "next_offset": result.next_offset,
        "category": query.category,
        "nav_active": "projects",
        "errors": errors,
        "selected_ids": request.form.getlist("task_ids"),
        "state_list_args": listing.state_list_args,
    }
    if partial:
        return render_template(partial, **context), status
    if htmx and query.offset and query.view == "list":
        return render_template("tracker/_task_rows.html", **context), status
    return render_template("tracker/project.html", **context), status


def query_errors_in(errors: dict[str, str]) -> bool:
    return "q" in errors or "pql" in errors


@bp.get("/o/<org>/projects/<uuid:project_id>")
@page(action="project.read")
def project(org: str, project_id: uuid.UUID, access: Access):
    """A project's tasks: search, PQL filter, sort, category tab, 50 at a time; or,
    with ``view=board``, a column per state."""
    return _project_page(access, projects.get_project(access.org.id, project_id))


@bp.get("/o/<org>/projects/<uuid:project_id>/board")
@page(action="project.read")
def board(org: str, project_id: uuid.UUID, access: Access):
    """The project's board: the list page with ``view=board``."""
    query, errors = listing.parse_list_query(request.args)
    query = query.model_copy(update={"view": "board"})
    proj = projects.get_project(access.org.id, project_id)
    return _project_page(access, proj, query, errors=errors)


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


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks/bulk")
@page(action="task.write")
def bulk_edit(org: str, project_id: uuid.UUID, access: Access):
    """Change the state, assignee or priority of the selected tasks, all or nothing;
    back to the same list (its search, filter, sort and tab) afterwards."""
    proj = projects.get_project(access.org.id, project_id)
    query, _ = listing.parse_list_query(request.form)
    try:
        form = parse_form(listing.BulkEdit)
        changed = tasks.bulk_update_tasks(proj, access.account.id, form.task_ids, form.changes())
    except ServiceError as exc:
        errors = {"bulk": " ".join(field_errors(exc).values())}
        return _project_page(access, proj, query, errors=errors, status=exc.status)
    flash(f"Updated {len(changed)} task{'s' if len(changed) != 1 else ''}.", "success")
    return redirect(url_for("core_pages.project", org=org, project_id=proj.id, **query.url_args()))


@bp.post("/o/<org>/tasks/<uuid:task_id>/state")
@page(action="task.write")
def change_state(org: str, task_id: uuid.UUID, access: Access):
    """Move a task to another state; answers the updated row to HTMX (or, from the
    board, ``view=board`` in the query string, the board again)."""
    task = tasks.get_task(access.org.id, task_id)
    form = parse_form(TaskPatch)
    if form.state_id is None:
        raise ServiceError("Choose a state.", field="state_id")
    tasks.update_task(task, access.account.id, {"state_id": form.state_id})
    query, _ = listing.parse_list_query(request.args)
    if query.view == "board":
        if htmx:
            return _project_page(access, task.project, query, partial="tracker/_board.html")
        return redirect(
            url_for("core_pages.project", org=org, project_id=task.project_id, **query.url_args())
        )
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, task.project)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id))
