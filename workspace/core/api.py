"""The core JSON API (DESIGN §3): org, members, projects, workflow, tasks, events.

Every view runs the same steps: authenticate and load the org (404 when not a
member), load the object (404 when not in this org), check the action, act.
"""

from __future__ import annotations

import uuid

from workspace.api import api_access, operation
from workspace.api.blueprints import api_blueprint
from workspace.core import accounts, events, projects, tasks
from workspace.core.schemas import (
    ActivityOut,
    CommentCreate,
    CommentOut,
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
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.permissions import require

bp = api_blueprint("core_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("")
@operation("Read the organization", tag="org", response=OrgOut)
def read_org(org_id: uuid.UUID):
    return OrgOut.model_validate(api_access(org_id).org)


@bp.get("/members")
@operation("List the org's active members", tag="org", response=list[MemberOut])
def list_members(org_id: uuid.UUID):
    access = api_access(org_id)
    return [MemberOut.model_validate(m) for m in accounts.list_members(access.org.id)]


@bp.get("/events")
@operation(
    "Read the org's audit trail, newest first", tag="org", query=EventQuery, response=list[EventOut]
)
def list_events(org_id: uuid.UUID, query: EventQuery):
    access = api_access(org_id)
    require(access, "org.manage_settings")
    rows = events.list_events(
        access.org.id, kind_prefix=query.kind, limit=query.limit, offset=query.offset
    )
    return [EventOut.model_validate(e) for e in rows]


def _project(org_id: uuid.UUID, project_id: uuid.UUID, action: str | None = None):
    """The caller's access and the project in the URL, checked for ``action``."""
    access = api_access(org_id)
    project = projects.get_project(access.org.id, project_id)
    if action:
        require(access, action, project.id)
    return access, project


# -- projects ---------------------------------------------------------------------------


@bp.get("/projects")
@operation("List projects", tag="projects", query=ProjectListQuery, response=list[ProjectOut])
def list_projects(org_id: uuid.UUID, query: ProjectListQuery):
    """Active projects by name; ``include_archived=true`` lists archived ones too."""
    access = api_access(org_id)
    rows = projects.list_projects(access.org.id, include_archived=query.include_archived)
    return [ProjectOut.model_validate(p) for p in rows]


@bp.post("/projects")
@operation(
    "Create a project",
    tag="projects",
    body=ProjectCreate,
    response=ProjectOut,
    status=201,
    errors=(400, 401, 404, 409),
)
def create_project(org_id: uuid.UUID, body: ProjectCreate):
    access = api_access(org_id)
    require(access, "project.create")
    project = projects.create_project(
        access.org.id, access.account.id, body.name, body.identifier, body.description
    )
    db.session.commit()
    return ProjectOut.model_validate(project)


@bp.get("/projects/<uuid:project_id>")
@operation("Read a project", tag="projects", response=ProjectOut)
def read_project(org_id: uuid.UUID, project_id: uuid.UUID):
    access = api_access(org_id)
    return ProjectOut.model_validate(projects.get_project(access.org.id, project_id))


@bp.patch("/projects/<uuid:project_id>")
@operation(
    "Rename, describe, archive or restore a project",
    tag="projects",
    body=ProjectPatch,
    response=ProjectOut,
)
def update_project(org_id: uuid.UUID, project_id: uuid.UUID, body: ProjectPatch):
    _access, project = _project(org_id, project_id, "project.edit")
    projects.update_project(
        project, name=body.name, description=body.description, archived=body.archived
    )
    db.session.commit()
    return ProjectOut.model_validate(project)


@bp.delete("/projects/<uuid:project_id>")
@operation("Delete a project and its tasks", tag="projects", status=204)
def delete_project(org_id: uuid.UUID, project_id: uuid.UUID):
    access, project = _project(org_id, project_id, "project.edit")
    projects.delete_project(project, access.account.id)
    db.session.commit()


@bp.get("/projects/<uuid:project_id>/members")
@operation("List project members", tag="projects", response=list[ProjectMemberOut])
def list_project_members(org_id: uuid.UUID, project_id: uuid.UUID):
    _access, project = _project(org_id, project_id)
    return [ProjectMemberOut.model_validate(m) for m in projects.list_project_members(project.id)]


@bp.post("/projects/<uuid:project_id>/members")
@operation(
    "Add an org member to a project, or change their role",
    tag="projects",
    body=ProjectMemberCreate,
    response=ProjectMemberOut,
    status=201,
)
def add_project_member(org_id: uuid.UUID, project_id: uuid.UUID, body: ProjectMemberCreate):
    _access, project = _project(org_id, project_id, "project.manage_members")
    member = projects.set_project_member(project, body.account_id, body.role)
    db.session.commit()
    return ProjectMemberOut.model_validate(member)


@bp.delete("/projects/<uuid:project_id>/members/<uuid:member_id>")
@operation("Remove a project member", tag="projects", status=204)
def remove_project_member(org_id: uuid.UUID, project_id: uuid.UUID, member_id: uuid.UUID):
    _access, project = _project(org_id, project_id, "project.manage_members")
    db.session.delete(projects.get_project_member(project, member_id))
    db.session.commit()


# -- workflow ---------------------------------------------------------------------------


@bp.get("/projects/<uuid:project_id>/states")
@operation("List a project's states in board order", tag="workflow", response=list[StateOut])
def list_states(org_id: uuid.UUID, project_id: uuid.UUID):
    _access, project = _project(org_id, project_id)
    return [StateOut.model_validate(s) for s in projects.list_states(project.id)]


@bp.post("/projects/<uuid:project_id>/states")
@operation(
    "Add a state",
    tag="workflow",
    body=StateCreate,
    response=StateOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_state(org_id: uuid.UUID, project_id: uuid.UUID, body: StateCreate):
    _access, project = _project(org_id, project_id, "project.manage_workflow")
    state = projects.create_state(project, body.name, body.category, body.color)
    db.session.commit()
    return StateOut.model_validate(state)


@bp.get("/projects/<uuid:project_id>/cycles")
@operation("List a project's cycles", tag="workflow", response=list[CycleOut])
def list_cycles(org_id: uuid.UUID, project_id: uuid.UUID):
    _access, project = _project(org_id, project_id)
    return [CycleOut.model_validate(c) for c in projects.list_cycles(project.id)]


@bp.post("/projects/<uuid:project_id>/cycles")
@operation(
    "Add a cycle",
    tag="workflow",
    body=CycleCreate,
    response=CycleOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_cycle(org_id: uuid.UUID, project_id: uuid.UUID, body: CycleCreate):
    _access, project = _project(org_id, project_id, "project.manage_workflow")
    cycle = projects.create_cycle(project, body.name, body.start_date, body.end_date)
    db.session.commit()
    return CycleOut.model_validate(cycle)


@bp.get("/projects/<uuid:project_id>/modules")
@operation("List a project's modules", tag="workflow", response=list[ModuleOut])
def list_modules(org_id: uuid.UUID, project_id: uuid.UUID):
    _access, project = _project(org_id, project_id)
    return [ModuleOut.model_validate(m) for m in projects.list_modules(project.id)]


@bp.post("/projects/<uuid:project_id>/modules")
@operation(
    "Add a module",
    tag="workflow",
    body=ModuleCreate,
    response=ModuleOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_module(org_id: uuid.UUID, project_id: uuid.UUID, body: ModuleCreate):
    _access, project = _project(org_id, project_id, "project.manage_workflow")
    module = projects.create_module(project, body.name, body.description)
    db.session.commit()
    return ModuleOut.model_validate(module)


# -- tasks ------------------------------------------------------------------------------


@bp.get("/projects/<uuid:project_id>/tasks")
@operation(
    "List a project's tasks, newest first", tag="tasks", query=TaskListQuery, response=TaskPage
)
def list_project_tasks(org_id: uuid.UUID, project_id: uuid.UUID, query: TaskListQuery):
    access, project = _project(org_id, project_id)
    flt = tasks.TaskFilter(
        **query.model_dump(exclude={"limit", "offset", "project_id"}), project_id=project.id
    )
    rows, total = tasks.list_tasks(access.org.id, flt, limit=query.limit, offset=query.offset)
    return TaskPage(
        items=[TaskOut.model_validate(t) for t in rows],
        total=total,
        limit=query.limit,
        offset=query.offset,
    )


@bp.post("/projects/<uuid:project_id>/tasks")
@operation("Create a task", tag="tasks", body=TaskCreate, response=TaskOut, status=201)
def create_task(org_id: uuid.UUID, project_id: uuid.UUID, body: TaskCreate):
    access, project = _project(org_id, project_id, "task.write")
    task = tasks.create_task(project, access.account.id, **body.model_dump())
    db.session.commit()
    return TaskOut.model_validate(task)


@bp.get("/tasks/<uuid:task_id>")
@operation("Read a task", tag="tasks", response=TaskOut)
def read_task(org_id: uuid.UUID, task_id: uuid.UUID):
    access = api_access(org_id)
    return TaskOut.model_validate(tasks.get_task(access.org.id, task_id))


@bp.patch("/tasks/<uuid:task_id>")
@operation(
    "Change a task; each changed field is written to its activity",
    tag="tasks",
    body=TaskPatch,
    response=TaskOut,
)
def update_task(org_id: uuid.UUID, task_id: uuid.UUID, body: TaskPatch):
    access = api_access(org_id)
    task = tasks.get_task(access.org.id, task_id)
    require(access, "task.write", task.project_id)
    changes = body.model_dump(include=body.model_fields_set)
    for required in ("title", "state_id", "priority", "kind", "archived"):
        if required in changes and changes[required] is None:
            raise ServiceError(f"{required} cannot be null.", field=required)
    tasks.update_task(task, access.account.id, changes)
    db.session.commit()
    return TaskOut.model_validate(task)


@bp.delete("/tasks/<uuid:task_id>")
@operation("Delete a task (it leaves lists and analytics; history stays)", tag="tasks", status=204)
def delete_task(org_id: uuid.UUID, task_id: uuid.UUID):
    access = api_access(org_id)
    task = tasks.get_task(access.org.id, task_id)
    require(access, "task.write", task.project_id)
    tasks.delete_task(task, access.account.id)
    db.session.commit()


@bp.get("/tasks/<uuid:task_id>/activity")
@operation("Read a task's history, oldest first", tag="tasks", response=list[ActivityOut])
def task_activity(org_id: uuid.UUID, task_id: uuid.UUID):
    access = api_access(org_id)
    task = tasks.get_task(access.org.id, task_id)
    return [ActivityOut.model_validate(a) for a in tasks.task_activity(task)]


@bp.get("/tasks/<uuid:task_id>/comments")
@operation("Read a task's comments", tag="tasks", response=list[CommentOut])
def list_comments(org_id: uuid.UUID, task_id: uuid.UUID):
    access = api_access(org_id)
    task = tasks.get_task(access.org.id, task_id)
    return [CommentOut.model_validate(c) for c in tasks.list_comments(task)]


@bp.post("/tasks/<uuid:task_id>/comments")
@operation("Comment on a task", tag="tasks", body=CommentCreate, response=CommentOut, status=201)
def add_comment(org_id: uuid.UUID, task_id: uuid.UUID, body: CommentCreate):
    access = api_access(org_id)
    task = tasks.get_task(access.org.id, task_id)
    require(access, "task.comment", task.project_id)
    comment = tasks.add_comment(task, access.account.id, body.body)
    db.session.commit()
    return CommentOut.model_validate(comment)
