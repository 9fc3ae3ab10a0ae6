"""The tracker's HTML pages: org home, projects, a project's tasks, settings.

Full pages include the partials that HTMX requests get alone (contact-app style);
forms keep action and method so they work without JavaScript. Every form goes
through the JSON API's input model (``parse_form``); a refused form re-renders with
a 4xx status, so the request's transaction rolls back.
"""

from __future__ import annotations

import functools
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from workspace.auth.guards import page
from workspace.auth.sessions import current_account
from workspace.core import accounts, orgs, projects, task_lists, tasks, workflow
from workspace.core.models import Priority, Project, Task, TaskKind
from workspace.core.schemas import OrgCreate, ProjectCreate, TaskCreate, TaskPatch
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors
from workspace.security.permissions import Access, can
from workspace.tracker import listing
from workspace.tracker.home import count_links, my_active_tasks, task_counts

bp = Blueprint("core_pages", __name__)


@bp.get("/orgs/new")
@page()
def new_org():
    """Create an organization; the creator becomes its owner."""
    return render_template("tracker/new_org.html", errors={}, values={})


def _new_org_again(error: ServiceError):
    values = request.form.to_dict()
    return render_template(
        "tracker/new_org.html", errors=field_errors(error), values=values
    ), error.status


@bp.post("/orgs/new")
@page(form=OrgCreate, invalid=_new_org_again)
def create_org(form: OrgCreate):
    org = orgs.create_org(form.name, current_account(), form.slug)
    flash(f"{org.name} is ready.", "success")
    return redirect(url_for("core_pages.org_home", org=org.slug))


@bp.get("/o/<org>/")
@page(action="org.read")
def org_home(org: str, access: Access):
    mine = my_active_tasks(access.org.id, access.account.id)  # due date, then priority
    return render_template(
        "tracker/org_home.html",
        nav_active="home",
        counts=task_counts(access.org.id),
        count_links=count_links(access.org.slug),
        project_list=projects.list_projects(access.org.id),
        my_tasks=mine,
        members=accounts.list_members(access.org.id),
    )


def _projects_page(access: Access, error: ServiceError | None = None):
    """The projects page, archived ones apart; after a refused create, with the errors
    and what was typed."""
    every = projects.list_projects(access.org.id, include_archived=True)
    return render_template(
        "tracker/projects.html",
        nav_active="projects",
        errors=field_errors(error) if error else {},
        form=request.form if error else {},
        project_list=[p for p in every if p.archived_at is None],
        archived=[p for p in every if p.archived_at is not None],
    ), (error.status if error else 200)


@bp.get("/o/<org>/projects", endpoint="projects")
@page(action="project.read")
def projects_page(access: Access):
    return _projects_page(access)


@bp.post("/o/<org>/projects")
@page(action="project.create", form=ProjectCreate, invalid=_projects_page)
def create_project(org: str, form: ProjectCreate, access: Access):
    project = projects.create_project(access.org.id, access.account.id, **form.model_dump())
    return redirect(url_for("core_pages.project", org=org, project_id=project.id))


def _task_page_context(access: Access, project) -> dict:
    everyone = accounts.list_members(access.org.id, include_inactive=True)
    return {
        "project": project,
        "states": workflow.list_states(project.id),
        # Whom a task may be given: active members and agents.
        "members": {m.account_id: m.account for m in everyone if m.active},
        # Whom a task may still name: a deactivated person's or a removed agent's
        # tasks said "Unassigned" on the board and the list.
        "assignees": {m.account_id: m for m in everyone},
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", project.id),
    }


#: ``app.extensions[PAGE_HOOKS]``: functions ``(access, project, query) -> (query,
#: context)`` that subpackages register (``saved_views``) to change the project page's
#: query and add to what its template reads.
PAGE_HOOKS = "tracker.project_page_hooks"

#: What the page's template reads when no hook says otherwise.
PAGE_DEFAULTS: dict[str, Any] = {
    "saved_views": [],
    "active_view": None,
    "view_changes": {},
    "can_save_view": False,
    "can_edit_view": False,
    "hidden_columns": [],
    "column_choices": {},
}


def _project_page(
    access: Access,
    proj: Project,
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
    # What subpackages add (saved views: ``?view=<id>`` and the tabs); they register
    # themselves, so this module never imports them (docs/saved_views.md).
    extra: dict[str, Any] = dict(PAGE_DEFAULTS)
    for hook in current_app.extensions.get(PAGE_HOOKS, ()):
        query, more = hook(access, proj, query)
        extra |= more
    result = listing.TaskList(query=query, states=workflow.list_states(proj.id))
    if not query_errors_in(errors):
        try:
            result = listing.run_list(access, proj, query)
        except ServiceError as exc:
            errors |= {exc.field or "form": exc.message}
    if query_errors_in(errors):
        status = max(status, 400)
    today = task_lists.today_in(access.org.timezone)
    context = (
        _task_page_context(access, proj)
        | {
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
            # What a refused form on the page had typed, to show it again.
            "typed": request.form,
            "state_list_args": listing.state_list_args,
            # The board's cards say "Overdue" by the org's calendar.
            "today": today,
            "is_overdue": functools.partial(task_lists.is_overdue, today=today),
        }
        | extra
    )
    if partial:
        return render_template(partial, **context), status
    if htmx and query.offset and query.view == "list":
        return render_template("tracker/_task_rows.html", **context), status
    return render_template("tracker/project.html", **context), status


def query_errors_in(errors: dict[str, str]) -> bool:
    """A search, filter or grouping the list cannot run (a 400; sort and paging fall
    back to their defaults instead)."""
    return "q" in errors or "pql" in errors or "group" in errors


@bp.get("/o/<org>/projects/<uuid:project_id>")
@page(action="project.read")
def project(project: Project, access: Access):
    """A project's tasks: search, PQL filter, sort, category tab, 50 at a time; or,
    with ``view=board``, a column per state."""
    return _project_page(access, project)


@bp.get("/o/<org>/projects/<uuid:project_id>/board")
@page(action="project.read")
def board(project: Project, access: Access):
    """The project's board: the list page with ``view=board``."""
    query, errors = listing.parse_list_query(request.args)
    query = query.model_copy(update={"view": "board"})
    return _project_page(access, project, query, errors=errors)


def _task_refused(error: ServiceError, project: Project, access: Access):
    if htmx:
        # The form again in place of itself, open, with the message and what was typed
        # (app.js swaps a refused data-swap-errors form's answer and focuses the field).
        html = render_template(
            "tracker/_task_form.html",
            errors=field_errors(error),
            typed=request.form,
            **_task_page_context(access, project),
        )
        retarget = {"HX-Retarget": "#task-form-box", "HX-Reswap": "outerHTML"}
        return Response(html, status=422, headers=retarget)
    return _project_page(access, project, errors=field_errors(error), status=422)


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks")
@page(action="task.write", form=TaskCreate, invalid=_task_refused)
def create_task(org: str, project: Project, form: TaskCreate, access: Access):
    task = tasks.create_task(project, access.account.id, **form.model_dump())
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, project)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=project.id))


def _bulk_refused(error: ServiceError, project: Project, access: Access):
    query, _ = listing.parse_list_query(request.form)
    errors = {"bulk": " ".join(field_errors(error).values())}
    return _project_page(access, project, query, errors=errors, status=error.status)


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks/bulk")
@page(action="task.write", form=listing.BulkEdit, invalid=_bulk_refused)
def bulk_edit(org: str, project: Project, form: listing.BulkEdit, access: Access):
    """Change the state, assignee or priority of the selected tasks, all or nothing;
    back to the same list (its search, filter, sort and tab) afterwards."""
    changed = tasks.bulk_update_tasks(project, access.account.id, form.task_ids, form.changes())
    flash(f"Updated {len(changed)} task{'s' if len(changed) != 1 else ''}.", "success")
    query, _ = listing.parse_list_query(request.form)
    return redirect(
        url_for("core_pages.project", org=org, project_id=project.id, **query.url_args())
    )


@bp.post("/o/<org>/tasks/<uuid:task_id>/state")
@page(action="task.write", form=TaskPatch)
def change_state(org: str, task: Task, form: TaskPatch, access: Access):
    """Move a task to another state; answers the updated row to HTMX (or, from the
    board, ``view=board`` in the query string, the board again)."""
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
