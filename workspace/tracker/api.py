"""The tracker's JSON API (docs/api.md): org, members, projects, workflow, tasks, events.
A task's history and comments are in ``task_page/api.py``.

Every view runs the same steps: the gate (``@operation(..., action=...)``) loads the
org (404 when not a member) and the project or task in the URL (404 when not in this
org) and checks the action; the view loads the object, calls one service, answers.
"""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core import (
    accounts,
    events,
    planning,
    projects,
    task_lists,
    tasks,
    workflow,
)
from workspace.core.models import Project, Task
from workspace.core.schemas import (
    CycleCreate,
    CycleOut,
    EventOut,
    EventQuery,
    MemberOut,
    ModuleCreate,
    ModuleOut,
    OrgOut,
    ProjectCreate,
    ProjectListQuery,
    ProjectMemberCreate,
    ProjectMemberOut,
    ProjectOut,
    ProjectPatch,
    StateCreate,
    StateOut,
    TaskCreate,
    TaskListQuery,
    TaskOut,
    TaskPage,
    TaskPatch,
)
from workspace.security.permissions import Access
from workspace.tracker import listing

bp = api_blueprint("core_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("")
@operation("Read the organization", tag="org", action="org.read", response=OrgOut)
def read_org(access: Access):
    return OrgOut.model_validate(access.org)


@bp.get("/members")
@operation("List the org's active members", tag="org", action="org.read", response=list[MemberOut])
def list_members(access: Access):
    return [MemberOut.model_validate(m) for m in accounts.list_members(access.org.id)]


@bp.get("/events")
@operation(
    "Read the org's audit trail, newest first",
    tag="org",
    action="org.manage_settings",
    query=EventQuery,
    response=list[EventOut],
)
def list_events(access: Access, query: EventQuery):
    """Narrow by kind prefix, the acting account and a UTC time range; page with
    ``limit``/``offset``. ``actor_id`` is null for the IdP, the directory or the system."""
    rows = events.list_events(
        access.org.id,
        kind_prefix=query.kind,
        actor_id=query.actor_id,
        since=query.since,
        until=query.until,
        limit=query.limit,
        offset=query.offset,
    )
    return [EventOut.model_validate(e) for e in rows]


# -- projects ---------------------------------------------------------------------------


@bp.get("/projects")
@operation(
    "List projects",
    tag="projects",
    action="project.read",
    query=ProjectListQuery,
    response=list[ProjectOut],
)
def list_projects(access: Access, query: ProjectListQuery):
    """Active projects by name; ``include_archived=true`` lists archived ones too."""
    rows = projects.list_projects(access.org.id, include_archived=query.include_archived)
    return [ProjectOut.model_validate(p) for p in rows]


@bp.post("/projects")
@operation(
    "Create a project",
    tag="projects",
    action="project.create",
    body=ProjectCreate,
    response=ProjectOut,
    status=201,
    errors=(400, 401, 404, 409),
)
def create_project(access: Access, body: ProjectCreate):
    project = projects.create_project(access.org.id, access.account.id, **body.model_dump())
    return ProjectOut.model_validate(project)


@bp.get("/projects/<uuid:project_id>")
@operation("Read a project", tag="projects", action="project.read", response=ProjectOut)
def read_project(project: Project, access: Access):
    return ProjectOut.model_validate(project)


@bp.patch("/projects/<uuid:project_id>")
@operation(
    "Rename, describe, archive or restore a project",
    tag="projects",
    action="project.edit",
    body=ProjectPatch,
    response=ProjectOut,
)
def update_project(project: Project, access: Access, body: ProjectPatch):
    project = projects.update_project(
        project,
        access.account.id,
        name=body.name,
        description=body.description,
        archived=body.archived,
    )
    return ProjectOut.model_validate(project)


@bp.delete("/projects/<uuid:project_id>")
@operation("Delete a project and its tasks", tag="projects", action="project.edit", status=204)
def delete_project(project: Project, access: Access):
    projects.delete_project(project, access.account.id)


@bp.get("/projects/<uuid:project_id>/members")
@operation(
    "List project members",
    tag="projects",
    action="project.read",
    response=list[ProjectMemberOut],
)
def list_project_members(project: Project, access: Access):
    return [ProjectMemberOut.model_validate(m) for m in projects.list_project_members(project.id)]


@bp.post("/projects/<uuid:project_id>/members")
@operation(
    "Add an org member to a project, or change a manual member's role",
    tag="projects",
    action="project.manage_members",
    body=ProjectMemberCreate,
    response=ProjectMemberOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def add_project_member(project: Project, access: Access, body: ProjectMemberCreate):
    member = projects.set_project_member(
        project,
        body.account_id,
        body.role,
        actor_id=access.account.id,
    )
    return ProjectMemberOut.model_validate(member)


@bp.delete("/projects/<uuid:project_id>/members/<uuid:member_id>")
@operation(
    "Remove a manual project member (a synced one is changed through group sync: 409)",
    tag="projects",
    action="project.manage_members",
    status=204,
    errors=(400, 401, 403, 404, 409),
)
def remove_project_member(project: Project, member_id: uuid.UUID, access: Access):
    projects.remove_project_member(
        projects.get_project_member(project, member_id), access.account.id
    )


# -- workflow ---------------------------------------------------------------------------


@bp.get("/projects/<uuid:project_id>/states")
@operation(
    "List a project's states in board order",
    tag="workflow",
    action="project.read",
    response=list[StateOut],
)
def list_states(project: Project, access: Access):
    return [StateOut.model_validate(s) for s in workflow.list_states(project.id)]


@bp.post("/projects/<uuid:project_id>/states")
@operation(
    "Add a state",
    tag="workflow",
    action="project.manage_workflow",
    body=StateCreate,
    response=StateOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_state(project: Project, access: Access, body: StateCreate):
    state = workflow.create_state(
        project,
        body.name,
        body.category,
        body.color,
        actor_id=access.account.id,
    )
    return StateOut.model_validate(state)


@bp.get("/projects/<uuid:project_id>/cycles")
@operation(
    "List a project's cycles", tag="workflow", action="project.read", response=list[CycleOut]
)
def list_cycles(project: Project, access: Access):
    return [CycleOut.model_validate(c) for c in planning.list_cycles(project.id)]


@bp.post("/projects/<uuid:project_id>/cycles")
@operation(
    "Add a cycle",
    tag="workflow",
    action="project.manage_workflow",
    body=CycleCreate,
    response=CycleOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_cycle(project: Project, access: Access, body: CycleCreate):
    cycle = planning.create_cycle(
        project,
        body.name,
        body.start_date,
        body.end_date,
        actor_id=access.account.id,
    )
    return CycleOut.model_validate(cycle)


@bp.get("/projects/<uuid:project_id>/modules")
@operation(
    "List a project's modules", tag="workflow", action="project.read", response=list[ModuleOut]
)
def list_modules(project: Project, access: Access):
    return [ModuleOut.model_validate(m) for m in planning.list_modules(project.id)]


@bp.post("/projects/<uuid:project_id>/modules")
@operation(
    "Add a module",
    tag="workflow",
    action="project.manage_workflow",
    body=ModuleCreate,
    response=ModuleOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_module(project: Project, access: Access, body: ModuleCreate):
    module = planning.create_module(
        project,
        body.name,
        body.description,
        actor_id=access.account.id,
    )
    return ModuleOut.model_validate(module)


# -- tasks ------------------------------------------------------------------------------


@bp.get("/projects/<uuid:project_id>/tasks")
@operation(
    "List a project's tasks: search, PQL filter, sort (newest first by default), group",
    tag="tasks",
    action="task.read",
    query=TaskListQuery,
    response=TaskPage,
)
def list_project_tasks(project: Project, access: Access, query: TaskListQuery):
    """With ``group`` (state, priority, kind or assignee) the rows come group by group
    in the page's order (states as the workflow lists them, priority urgent to none,
    assignees by name, unassigned last), each group sorted by ``sort`` and ``dir``."""
    flt = task_lists.TaskFilter(
        **query.model_dump(
            exclude={"limit", "offset", "project_id", "q", "pql", "sort", "dir", "group"}
        ),
        project_id=project.id,
        search=query.q or None,
        condition=listing.pql_condition(access, query.pql),
    )
    rows, total = task_lists.list_tasks(
        access.org.id,
        flt,
        limit=query.limit,
        offset=query.offset,
        sort=query.sort,
        descending=query.dir == "desc",
        group=query.group,
    )
    return TaskPage(
        items=[TaskOut.model_validate(t) for t in rows],
        total=total,
        limit=query.limit,
        offset=query.offset,
    )


@bp.post("/projects/<uuid:project_id>/tasks")
@operation(
    "Create a task",
    tag="tasks",
    action="task.write",
    body=TaskCreate,
    response=TaskOut,
    status=201,
)
def create_task(project: Project, access: Access, body: TaskCreate):
    task = tasks.create_task(project, access.account.id, **body.model_dump())
    return TaskOut.model_validate(task)


@bp.get("/tasks/<uuid:task_id>")
@operation("Read a task", tag="tasks", action="task.read", response=TaskOut)
def read_task(task: Task, access: Access):
    return TaskOut.model_validate(task)


@bp.patch("/tasks/<uuid:task_id>")
@operation(
    "Change a task; each changed field is written to its activity",
    tag="tasks",
    action="task.write",
    body=TaskPatch,
    response=TaskOut,
)
def update_task(task: Task, access: Access, body: TaskPatch):
    tasks.update_task(task, access.account.id, body.model_dump(include=body.model_fields_set))
    return TaskOut.model_validate(task)


@bp.delete("/tasks/<uuid:task_id>")
@operation(
    "Delete a task (it leaves lists and analytics; history stays)",
    tag="tasks",
    action="task.write",
    status=204,
)
def delete_task(task: Task, access: Access):
    tasks.delete_task(task, access.account.id)
