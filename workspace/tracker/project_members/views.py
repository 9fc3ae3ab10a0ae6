"""A project's members page (docs/projects.md): who is in the project, with role and
where the membership comes from (manual or group sync), and the forms to add, change
and remove. The gate loads the org and the project and checks the action; the view
parses the form with the JSON API's input model, calls one service and redirects, or
renders the page again with the errors beside their fields and a 4xx status."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.core import projects
from workspace.core.models import MembershipSource, ProjectRole
from workspace.core.schemas import ProjectMemberCreate, ProjectMemberRole
from workspace.errors import ServiceError
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access, can

bp = Blueprint("project_members", __name__)

MEMBERS = "/o/<org>/projects/<uuid:project_id>/members"
ROLES = [(r.value, r.value.capitalize()) for r in ProjectRole]


def _members_page(
    access: Access,
    project_id: uuid.UUID,
    *,
    errors: dict[str, dict[str, str]] | None = None,
    values: dict[str, Any] | None = None,
    status: int = 200,
):
    project = projects.get_project(access.org.id, project_id)
    search = request.args.get("q", "")[:200]
    html = render_template(
        "tracker/project_settings/members.html",
        project=project,
        members=projects.list_project_members(project.id),
        candidates=projects.member_candidates(project, search),
        search=search,
        admins=projects.project_admins(project),
        can_manage=can(access, "project.manage_members", project.id),
        roles=ROLES,
        synced=MembershipSource.SYNCED,
        errors=errors or {},
        values=values or {},
    )
    return html, status


def _members_failed(access: Access, project_id: uuid.UUID, key: str, exc: ServiceError):
    return _members_page(
        access,
        project_id,
        errors={key: field_errors(exc)},
        values={key: request.form},
        status=exc.status,
    )


def _members_done(org: str, project_id: uuid.UUID, message: str):
    flash(message, "success")
    return redirect(url_for("project_members.members", org=org, project_id=project_id), 303)


@bp.get(MEMBERS)
@page(action="project.read")
def members(org: str, project_id: uuid.UUID, access: Access):
    """Who is in the project, with role and where the membership comes from; ``q``
    narrows the people the add form offers."""
    return _members_page(access, project_id)


@bp.post(MEMBERS)
@page(action="project.manage_members")
def add_member(org: str, project_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(ProjectMemberCreate)
        member = projects.set_project_member(
            project, form.account_id, form.role, actor_id=access.account.id
        )
    except ServiceError as exc:
        return _members_failed(access, project_id, "add", exc)
    return _members_done(org, project_id, f"{member.account.email} is now {member.role}.")


@bp.post(MEMBERS + "/<uuid:member_id>")
@page(action="project.manage_members")
def change_member(org: str, project_id: uuid.UUID, member_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        member = projects.get_project_member(project, member_id)
        form = parse_form(ProjectMemberRole)
        projects.set_project_member(
            project, member.account_id, form.role, actor_id=access.account.id
        )
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _members_failed(access, project_id, f"member-{member_id}", exc)
    return _members_done(org, project_id, f"{member.account.email} is now {member.role}.")


@bp.post(MEMBERS + "/<uuid:member_id>/remove")
@page(action="project.manage_members")
def remove_member(org: str, project_id: uuid.UUID, member_id: uuid.UUID, access: Access):
    project = projects.get_project(access.org.id, project_id)
    try:
        member = projects.get_project_member(project, member_id)
        email = member.account.email
        projects.remove_project_member(member, access.account.id)
    except ServiceError as exc:
        if exc.status == 404:
            raise
        return _members_failed(access, project_id, f"member-{member_id}", exc)
    return _members_done(org, project_id, f"{email} was removed from the project.")
