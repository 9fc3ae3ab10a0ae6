"""A project's settings page (docs/projects.md); its members page is
``tracker/project_members``.

Every view runs the same steps: the gate (``@page(action=...)``) loads the org and the
project in the URL and checks the action; the view parses the form with the JSON API's
input model, calls one service and redirects, or renders the page again with the
errors beside their fields and a 4xx status (the request is rolled back).
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.core import planning, projects, workflow
from workspace.core.models import StateCategory
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
from workspace.inputs import field_errors, parse_form, parse_query, with_checkboxes
from workspace.security.permissions import Access, can

bp = Blueprint("project_settings", __name__)

SETTINGS = "/o/<org>/projects/<uuid:project_id>/settings"

CATEGORIES = [(c.value, c.value.capitalize()) for c in StateCategory]


def _settings_page(
    access: Access,
    project_id: uuid.UUID,
    *,
    errors: dict[str, dict[str, str]] | None = None,
    values: dict[str, Any] | None = None,
    status: int = 200,
):
    """The settings page; ``errors`` and ``values`` are keyed by the form they belong
    to (``project``, ``new-state``, ``state-<id>`` ...)."""
    project = projects.get_project(access.org.id, project_id)
    html = render_template(
        "tracker/project_settings/general.html",
        project=project,
        states=workflow.list_states(project.id),
        counts=workflow.state_task_counts(project.id),
        cycles=planning.list_cycles(project.id),
        modules=planning.list_modules(project.id),
        admins=projects.project_admins(project),
        can_edit=can(access, "project.edit", project.id),
        can_workflow=can(access, "project.manage_workflow", project.id),
        categories=CATEGORIES,
        errors=errors or {},
        values=values or {},
    )
    return html, status


def _failed(access: Access, project_id: uuid.UUID, key: str, exc: ServiceError):
    return _settings_page(
        access,
        project_id,
        errors={key: field_errors(exc)},
        values={key: request.form},
        status=exc.status,
    )


def _done(org: str, project_id: uuid.UUID, message: str, anchor: str):
    flash(message, "success")
    url = url_for("project_settings.general", org=org, project_id=project_id, _anchor=anchor)
    return redirect(url, code=303)


@bp.get(SETTINGS)
@page(action="project.read")
def general(org: str, project_id: uuid.UUID, access: Access):
    """Name, description, archive; states, cycles and modules. Read-only without the
    right, with a note who can change them."""
    return _settings_page(access, project_id)


@bp.post(SETTINGS)
@page(action="project.edit")
def save_general(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        # The form sends both boxes: a blank one is read as absent, and means empty.
        form = parse_form(ProjectPatch)
        projects.update_project(
            project, access.account.id, name=form.name or "", description=form.description or ""
        )
    except ServiceError as exc:
        return _failed(access, project_id, "project", exc)
    return _done(org, project_id, "Project saved.", "general")


@bp.post(SETTINGS + "/archive")
@page(action="project.edit")
def archive(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(ArchiveForm)
        projects.update_project(project, access.account.id, archived=form.archived)
    except ServiceError as exc:
        return _failed(access, project_id, "archive", exc)
    return _done(
        org,
        project_id,
        "Project archived: it left the project lists; restore it here."
        if form.archived
        else "Project restored.",
        "archive",
    )


# -- states -----------------------------------------------------------------------------


@bp.post(SETTINGS + "/states")
@page(action="project.manage_workflow")
def add_state(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(StateCreate)
        state = workflow.create_state(
            project, form.name, form.category, form.color, actor_id=access.account.id
        )
    except ServiceError as exc:
        return _failed(access, project_id, "new-state", exc)
    return _done(org, project_id, f"State '{state.name}' added.", "states")


@bp.post(SETTINGS + "/states/<uuid:state_id>")
@page(action="project.manage_workflow")
def update_state(org: str, project_id: uuid.UUID, state_id: uuid.UUID, access: Access):
    """Rename (``name``) or move up/down (``position``)."""
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(StatePatch)
        if form.category is not None:
            raise ServiceError(
                "Change a category with the category form: it says first what moves.",
                field="category",
            )
        state = workflow.get_state(project, state_id)
        workflow.update_state(
            project, state, access.account.id, name=form.name, position=form.position
        )
    except ServiceError as exc:
        return _failed(access, project_id, f"state-{state_id}", exc)
    what = "moved" if form.name is None else "saved"
    return _done(org, project_id, f"State '{state.name}' {what}.", f"state-{state_id}")


@bp.get(SETTINGS + "/states/<uuid:state_id>/category")
@page(action="project.manage_workflow")
def confirm_category(org: str, project_id: uuid.UUID, state_id: uuid.UUID, access: Access):
    """What a new category would move, before anything changes."""
    project = projects.get_project(access.org.id, project_id)
    try:
        state = workflow.get_state(project, state_id)
        form = parse_query(StateCategoryForm)
        message = workflow.recategorize_preview(state, form.category)
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _settings_page(
            access,
            project_id,
            errors={f"category-{state_id}": field_errors(exc)},
            status=exc.status,
        )
    return render_template(
        "tracker/project_settings/confirm_category.html",
        project=project,
        state=state,
        category=form.category,
        message=message,
    )


@bp.post(SETTINGS + "/states/<uuid:state_id>/category")
@page(action="project.manage_workflow")
def recategorize(org: str, project_id: uuid.UUID, state_id: uuid.UUID, access: Access):
    """Apply a new category once confirmed; without ``confirm`` the confirmation again."""
    project = projects.get_project(access.org.id, project_id)
    try:
        state = workflow.get_state(project, state_id)
        form = parse_form(StateCategoryForm, with_checkboxes(request.form, "confirm"))
        if not form.confirm:
            return redirect(
                url_for(
                    "project_settings.confirm_category",
                    org=org,
                    project_id=project_id,
                    state_id=state_id,
                    category=form.category.value,
                ),
                code=303,
            )
        moved = workflow.update_state(project, state, access.account.id, category=form.category)
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _failed(access, project_id, f"category-{state_id}", exc)
    noun = "task" if moved == 1 else "tasks"
    return _done(
        org,
        project_id,
        f"'{state.name}' is now {state.category.capitalize()}; {moved} {noun} moved with it.",
        f"state-{state_id}",
    )


@bp.post(SETTINGS + "/states/<uuid:state_id>/delete")
@page(action="project.manage_workflow")
def delete_state(org: str, project_id: uuid.UUID, state_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        state = workflow.get_state(project, state_id)
        name = state.name
        workflow.delete_state(project, state, access.account.id)
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _failed(access, project_id, f"state-{state_id}", exc)
    return _done(org, project_id, f"State '{name}' deleted.", "states")


# -- cycles and modules -----------------------------------------------------------------


@bp.post(SETTINGS + "/cycles")
@page(action="project.manage_workflow")
def add_cycle(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(CycleCreate)
        cycle = planning.create_cycle(
            project, form.name, form.start_date, form.end_date, actor_id=access.account.id
        )
    except ServiceError as exc:
        return _failed(access, project_id, "new-cycle", exc)
    return _done(org, project_id, f"Cycle '{cycle.name}' added.", "cycles")


@bp.post(SETTINGS + "/cycles/<uuid:cycle_id>")
@page(action="project.manage_workflow")
def update_cycle(org: str, project_id: uuid.UUID, cycle_id: uuid.UUID, access: Access):
    """The whole row: a blank date clears it."""
    project = projects.get_project(access.org.id, project_id)
    try:
        cycle = planning.get_cycle(project, cycle_id)
        form = parse_form(CycleCreate)
        planning.update_cycle(project, cycle, access.account.id, form.model_dump())
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _failed(access, project_id, f"cycle-{cycle_id}", exc)
    return _done(org, project_id, f"Cycle '{cycle.name}' saved.", f"cycle-{cycle_id}")


@bp.post(SETTINGS + "/modules")
@page(action="project.manage_workflow")
def add_module(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(ModuleCreate)
        module = planning.create_module(
            project, form.name, form.description, actor_id=access.account.id
        )
    except ServiceError as exc:
        return _failed(access, project_id, "new-module", exc)
    return _done(org, project_id, f"Module '{module.name}' added.", "modules")


@bp.post(SETTINGS + "/modules/<uuid:module_id>")
@page(action="project.manage_workflow")
def update_module(org: str, project_id: uuid.UUID, module_id: uuid.UUID, access: Access):
    """The whole row: a blank description clears it."""
    project = projects.get_project(access.org.id, project_id)
    try:
        module = planning.get_module(project, module_id)
        form = parse_form(ModuleCreate)
        planning.update_module(project, module, access.account.id, form.model_dump())
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _failed(access, project_id, f"module-{module_id}", exc)
    return _done(org, project_id, f"Module '{module.name}' saved.", f"module-{module_id}")
