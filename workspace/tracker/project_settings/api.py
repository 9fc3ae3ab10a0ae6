"""A project's settings as JSON: states, cycles and modules changed after creation.

Every view runs the same steps as the tracker's API: the gate loads the org and the
project in the URL and checks the action; the view loads the state, cycle or module
(another project's: 404), calls one service, answers.
"""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core import planning, workflow
from workspace.core.models import Project
from workspace.core.schemas import (
    CycleOut,
    CyclePatch,
    ModuleOut,
    ModulePatch,
    StateChangeOut,
    StatePatch,
)
from workspace.security.permissions import Access
from workspace.tracker.project_settings import service
from workspace.tracker.project_settings.schemas import StateDelete

bp = api_blueprint("project_settings_api", __name__, "/api/v1/orgs/<uuid:org_id>")

_WRITE_ERRORS = (400, 401, 403, 404, 409)


@bp.patch("/projects/<uuid:project_id>/states/<uuid:state_id>")
@operation(
    "Rename, reorder or recategorize a state",
    tag="workflow",
    action="project.manage_workflow",
    body=StatePatch,
    response=StateChangeOut,
    errors=_WRITE_ERRORS,
)
def update_state(project: Project, state_id: uuid.UUID, access: Access, body: StatePatch):
    """Only the fields sent change. A new ``category`` moves every task in the state
    with it (their completion time is set or cleared and each gets a state history
    row); ``moved_tasks`` says how many. ``position`` is the 0-based board place."""
    state = workflow.get_state(project, state_id)
    moved = workflow.update_state(
        project,
        state,
        access.account.id,
        name=body.name,
        category=body.category,
        position=body.position,
    )
    out = StateChangeOut.model_validate(state)
    out.moved_tasks = moved
    return out


@bp.delete("/projects/<uuid:project_id>/states/<uuid:state_id>")
@operation(
    "Delete a state, moving its tasks to another first (move_to)",
    tag="workflow",
    action="project.manage_workflow",
    query=StateDelete,
    status=204,
    errors=_WRITE_ERRORS,
)
def delete_state(project: Project, state_id: uuid.UUID, access: Access, query: StateDelete):
    """With ``move_to`` (another state of the project) its tasks move there first, each
    move in the task's history; without it, refused (409) while tasks are in it.
    Always refused for the default state and for the project's last completed state."""
    state = workflow.get_state(project, state_id)
    service.delete_state(project, state, access.account.id, query.move_to)


@bp.patch("/projects/<uuid:project_id>/cycles/<uuid:cycle_id>")
@operation(
    "Rename a cycle or change its dates",
    tag="workflow",
    action="project.manage_workflow",
    body=CyclePatch,
    response=CycleOut,
    errors=_WRITE_ERRORS,
)
def update_cycle(project: Project, cycle_id: uuid.UUID, access: Access, body: CyclePatch):
    """Only the fields sent change; ``null`` clears a date. The end is never before
    the start."""
    cycle = planning.update_cycle(
        project,
        planning.get_cycle(project, cycle_id),
        access.account.id,
        body.model_dump(include=body.model_fields_set),
    )
    return CycleOut.model_validate(cycle)


@bp.patch("/projects/<uuid:project_id>/modules/<uuid:module_id>")
@operation(
    "Rename or describe a module",
    tag="workflow",
    action="project.manage_workflow",
    body=ModulePatch,
    response=ModuleOut,
    errors=_WRITE_ERRORS,
)
def update_module(
    project: Project,
    module_id: uuid.UUID,
    access: Access,
    body: ModulePatch,
):
    module = planning.update_module(
        project,
        planning.get_module(project, module_id),
        access.account.id,
        body.model_dump(include=body.model_fields_set),
    )
    return ModuleOut.model_validate(module)


@bp.delete("/projects/<uuid:project_id>/cycles/<uuid:cycle_id>")
@operation(
    "Delete a cycle; its tasks stay in the project, out of any cycle",
    tag="workflow",
    action="project.manage_workflow",
    status=204,
    errors=_WRITE_ERRORS,
)
def delete_cycle(project: Project, cycle_id: uuid.UUID, access: Access):
    """Each task leaves the cycle first, in its history."""
    service.delete_plan(project, planning.get_cycle(project, cycle_id), access.account.id)


@bp.delete("/projects/<uuid:project_id>/modules/<uuid:module_id>")
@operation(
    "Delete a module; its tasks stay in the project, out of any module",
    tag="workflow",
    action="project.manage_workflow",
    status=204,
    errors=_WRITE_ERRORS,
)
def delete_module(project: Project, module_id: uuid.UUID, access: Access):
    """Each task leaves the module first, in its history."""
    service.delete_plan(project, planning.get_module(project, module_id), access.account.id)
