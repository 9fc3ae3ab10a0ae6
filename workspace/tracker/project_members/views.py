"""A project's members page (docs/projects.md): who is in the project, with role and
where the membership comes from (manual or group sync), and the forms to add, change
and remove. The gate loads the org and the project, checks the action and parses the
form with the JSON API's input model; the view calls one service and redirects. A
refusal renders the page again with the errors beside their fields and a 4xx status."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from flask import Blueprint, flash, redirect, render_template, url_for
from pydantic import BeforeValidator

from workspace.auth.guards import form_again, page
from workspace.core import projects
from workspace.core.models import MembershipSource, Project, ProjectRole
from workspace.core.schemas import ProjectMemberCreate, ProjectMemberRole
from workspace.inputs import QueryModel
from workspace.security.permissions import Access, can

bp = Blueprint("project_members", __name__)

MEMBERS = "/o/<org>/projects/<uuid:project_id>/members"
ROLES = [(r.value, r.value.capitalize()) for r in ProjectRole]


class MemberSearch(QueryModel):
    #: Narrows the people the add form offers; a longer one is cut, not refused.
    q: Annotated[str, BeforeValidator(lambda text: str(text)[:200])] = ""


def _members_page(
    access: Access,
    project: Project,
    *,
    search: str = "",
    errors: dict[str, dict[str, str]] | None = None,
    values: dict[str, Any] | None = None,
    status: int = 200,
):
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


def _members_done(org: str, project: Project, message: str):
    flash(message, "success")
    return redirect(url_for("project_members.members", org=org, project_id=project.id), 303)


@bp.get(MEMBERS)
@page(action="project.read", form=MemberSearch)
def members(project: Project, form: MemberSearch, access: Access):
    """Who is in the project, with role and where the membership comes from; ``q``
    narrows the people the add form offers."""
    return _members_page(access, project, search=form.q)


@bp.post(MEMBERS)
@page(
    action="project.manage_members",
    form=ProjectMemberCreate,
    invalid=form_again(_members_page, "add"),
)
def add_member(org: str, project: Project, form: ProjectMemberCreate, access: Access):
    member = projects.set_project_member(
        project, form.account_id, form.role, actor_id=access.account.id
    )
    return _members_done(org, project, f"{member.account.email} is now {member.role}.")


@bp.post(MEMBERS + "/<uuid:member_id>")
@page(
    action="project.manage_members",
    form=ProjectMemberRole,
    invalid=form_again(_members_page, "member-{member_id}", url_ids=True),
)
def change_member(
    org: str, project: Project, member_id: uuid.UUID, form: ProjectMemberRole, access: Access
):
    member = projects.get_project_member(project, member_id)
    projects.set_project_member(project, member.account_id, form.role, actor_id=access.account.id)
    return _members_done(org, project, f"{member.account.email} is now {member.role}.")


@bp.post(MEMBERS + "/<uuid:member_id>/remove")
@page(
    action="project.manage_members",
    invalid=form_again(_members_page, "member-{member_id}", url_ids=True),
)
def remove_member(org: str, project: Project, member_id: uuid.UUID, access: Access):
    member = projects.get_project_member(project, member_id)
    email = member.account.email
    projects.remove_project_member(member, access.account.id)
    return _members_done(org, project, f"{email} was removed from the project.")
