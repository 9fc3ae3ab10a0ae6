"""A project's settings page (docs/projects.md); its members page is
``tracker/project_members``.

Every view runs the same steps, most of them in the gate: ``@page`` loads the org and
the project in the URL, checks the action and parses the form with the JSON API's
input model; the view calls one service and redirects. On a refusal the gate calls
``invalid``: the page again, with the errors beside the form they belong to and a 4xx
status (what the request wrote is discarded).
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, render_template, url_for

from workspace.auth.guards import form_again, page
from workspace.core import planning, projects, workflow
from workspace.core.models import Project, StateCategory, Task
from workspace.core.schemas import (
    ArchiveForm,
    CycleCreate,
    ModuleCreate,
    ProjectPatch,
    StateCategoryForm,
    StateCreate,
    StatePatch,
)
from workspace.errors import ServiceError
from workspace.security.permissions import Access, can
from workspace.tracker.project_settings import service
from workspace.tracker.project_settings.schemas import StateDelete

bp = Blueprint("project_settings", __name__)

SETTINGS = "/o/<org>/projects/<uuid:project_id>/settings"

CATEGORIES = [(c.value, c.value.capitalize()) for c in StateCategory]


def _settings_page(
    access: Access,
    project: Project,
    *,
    errors: dict[str, dict[str, str]] | None = None,
    values: dict[str, Any] | None = None,
    status: int = 200,
):
    """The settings page; ``errors`` and ``values`` are keyed by the form they belong
    to (``project``, ``new-state``, ``state-<id>`` ...)."""
    counts, archived_counts = workflow.state_task_counts(project.id)
    html = render_template(
        "tracker/project_settings/general.html",
        project=project,
        states=workflow.list_states(project.id),
        counts=counts,
        archived_counts=archived_counts,
        cycles=planning.list_cycles(project.id),
        modules=planning.list_modules(project.id),
        cycle_counts=planning.plan_counts(project.id, Task.cycle_id),
        module_counts=planning.plan_counts(project.id, Task.module_id),
        admins=projects.project_admins(project),
        can_edit=can(access, "project.edit", project.id),
        can_workflow=can(access, "project.manage_workflow", project.id),
        categories=CATEGORIES,
        errors=errors or {},
        values=values or {},
    )
    return html, status


def _done(org: str, project: Project, message: str, anchor: str):
    flash(message, "success")
    url = url_for("project_settings.general", org=org, project_id=project.id, _anchor=anchor)
    return redirect(url, code=303)


@bp.get(SETTINGS)
@page(action="project.read")
def general(access: Access, project: Project):
    """Name, description, archive; states, cycles and modules. Read-only without the
    right, with a note who can change them."""
    return _settings_page(access, project)


@bp.post(SETTINGS)
@page(action="project.edit", form=ProjectPatch, invalid=form_again(_settings_page, "project"))
def save_general(org: str, project: Project, form: ProjectPatch, access: Access):
    # The form sends both boxes: a blank one is read as absent, and means empty.
    projects.update_project(
        project, access.account.id, name=form.name or "", description=form.description or ""
    )
    return _done(org, project, "Project saved.", "general")


@bp.post(SETTINGS + "/archive")
@page(action="project.edit", form=ArchiveForm, invalid=form_again(_settings_page, "archive"))
def archive(org: str, project: Project, form: ArchiveForm, access: Access):
    projects.update_project(project, access.account.id, archived=form.archived)
    message = (
        "Project archived: it left the project lists; restore it here."
        if form.archived
        else "Project restored."
    )
    return _done(org, project, message, "archive")


# -- states -----------------------------------------------------------------------------


@bp.post(SETTINGS + "/states")
@page(
    action="project.manage_workflow",
    form=StateCreate,
    invalid=form_again(_settings_page, "new-state"),
)
def add_state(org: str, project: Project, form: StateCreate, access: Access):
    state = workflow.create_state(
        project, form.name, form.category, form.color, actor_id=access.account.id
    )
    return _done(org, project, f"State '{state.name}' added.", "add-state")


@bp.post(SETTINGS + "/states/<uuid:state_id>")
@page(
    action="project.manage_workflow",
    form=StatePatch,
    invalid=form_again(_settings_page, "state-{state_id}", url_ids=True),
)
def update_state(org: str, project: Project, state_id: uuid.UUID, form: StatePatch, access: Access):
    """Rename (``name``) or move up/down (``position``)."""
    if form.category is not None:
        raise ServiceError(
            "Change a category with the category form: it says first what moves.",
            field="category",
        )
    state = workflow.get_state(project, state_id)
    workflow.update_state(project, state, access.account.id, name=form.name, position=form.position)
    what = "moved" if form.name is None else "saved"
    return _done(org, project, f"State '{state.name}' {what}.", f"state-{state_id}")


@bp.get(SETTINGS + "/states/<uuid:state_id>/category")
@page(
    action="project.manage_workflow",
    form=StateCategoryForm,
    invalid=form_again(_settings_page, "category-{state_id}", url_ids=True),
)
def confirm_category(project: Project, state_id: uuid.UUID, form: StateCategoryForm):
    """What a new category would move, before anything changes."""
    state = workflow.get_state(project, state_id)
    return render_template(
        "tracker/project_settings/confirm_category.html",
        project=project,
        state=state,
        category=form.category,
        message=workflow.recategorize_preview(state, form.category),
    )


@bp.post(SETTINGS + "/states/<uuid:state_id>/category")
@page(
    action="project.manage_workflow",
    form=StateCategoryForm,
    checkboxes=("confirm",),
    invalid=form_again(_settings_page, "category-{state_id}", url_ids=True),
)
def recategorize(
    org: str, project: Project, state_id: uuid.UUID, form: StateCategoryForm, access: Access
):
    """Apply a new category once confirmed; without ``confirm`` the confirmation again."""
    state = workflow.get_state(project, state_id)
    if not form.confirm:
        url = url_for(
            "project_settings.confirm_category",
            org=org,
            project_id=project.id,
            state_id=state_id,
            category=form.category.value,
        )
        return redirect(url, code=303)
    moved = workflow.update_state(project, state, access.account.id, category=form.category)
    noun = "task" if moved == 1 else "tasks"
    return _done(
        org,
        project,
        f"'{state.name}' is now {state.category.capitalize()}; {moved} {noun} moved with it.",
        f"state-{state_id}",
    )


@bp.post(SETTINGS + "/states/<uuid:state_id>/delete")
@page(
    action="project.manage_workflow",
    form=StateDelete,
    invalid=form_again(_settings_page, "state-{state_id}", url_ids=True),
)
def delete_state(
    org: str, project: Project, state_id: uuid.UUID, form: StateDelete, access: Access
):
    state = workflow.get_state(project, state_id)
    name = state.name
    moved = service.delete_state(project, state, access.account.id, form.move_to)
    tail = f"; {moved} task{'s' if moved != 1 else ''} moved first" if moved else ""
    return _done(org, project, f"State '{name}' deleted{tail}.", "add-state")


# -- cycles and modules -----------------------------------------------------------------


@bp.post(SETTINGS + "/cycles")
@page(
    action="project.manage_workflow",
    form=CycleCreate,
    invalid=form_again(_settings_page, "new-cycle"),
)
def add_cycle(org: str, project: Project, form: CycleCreate, access: Access):
    cycle = planning.create_cycle(
        project, form.name, form.start_date, form.end_date, actor_id=access.account.id
    )
    return _done(org, project, f"Cycle '{cycle.name}' added.", "add-cycle")


@bp.post(SETTINGS + "/cycles/<uuid:cycle_id>")
@page(
    action="project.manage_workflow",
    form=CycleCreate,
    invalid=form_again(_settings_page, "cycle-{cycle_id}", url_ids=True),
)
def update_cycle(
    org: str, project: Project, cycle_id: uuid.UUID, form: CycleCreate, access: Access
):
    """The whole row: a blank date clears it."""
    cycle = planning.get_cycle(project, cycle_id)
    planning.update_cycle(project, cycle, access.account.id, form.model_dump())
    return _done(org, project, f"Cycle '{cycle.name}' saved.", f"cycle-{cycle_id}")


@bp.post(SETTINGS + "/modules")
@page(
    action="project.manage_workflow",
    form=ModuleCreate,
    invalid=form_again(_settings_page, "new-module"),
)
def add_module(org: str, project: Project, form: ModuleCreate, access: Access):
    module = planning.create_module(
        project, form.name, form.description, actor_id=access.account.id
    )
    return _done(org, project, f"Module '{module.name}' added.", "add-module")


@bp.post(SETTINGS + "/modules/<uuid:module_id>")
@page(
    action="project.manage_workflow",
    form=ModuleCreate,
    invalid=form_again(_settings_page, "module-{module_id}", url_ids=True),
)
def update_module(
    org: str, project: Project, module_id: uuid.UUID, form: ModuleCreate, access: Access
):
    """The whole row: a blank description clears it."""
    module = planning.get_module(project, module_id)
    planning.update_module(project, module, access.account.id, form.model_dump())
    return _done(org, project, f"Module '{module.name}' saved.", f"module-{module_id}")


@bp.post(SETTINGS + "/cycles/<uuid:plan_id>/delete", defaults={"plans": "cycles"})
@bp.post(SETTINGS + "/modules/<uuid:plan_id>/delete", defaults={"plans": "modules"})
@page(action="project.manage_workflow")
def delete_plan(org: str, project: Project, plans: str, plan_id: uuid.UUID, access: Access):
    """Delete a cycle or module; its tasks stay, out of it (each in its history)."""
    cycle = plans == "cycles"
    row = (planning.get_cycle if cycle else planning.get_module)(project, plan_id)
    name, noun = row.name, "Cycle" if cycle else "Module"
    left = service.delete_plan(project, row, access.account.id)
    tail = f"; its {left} task{'s' if left != 1 else ''} stay, out of it" if left else ""
    return _done(org, project, f"{noun} '{name}' deleted{tail}.", plans)
