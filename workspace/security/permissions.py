"""The one place that answers "may this member do this in this org or project".

Views load the org through :func:`org_access` (another org's objects are 404, never
403) and then call :func:`require` with an action name from :data:`ACTIONS`. Org
owners and admins act as project admins everywhere.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from werkzeug.exceptions import Forbidden, NotFound

from workspace.core.models import Account, Org, OrgMember, OrgRole, ProjectMember, ProjectRole
from workspace.extensions import db


@dataclass(frozen=True)
class Rule:
    #: Lowest org role that may act (owner > admin > member).
    org_role: OrgRole = OrgRole.MEMBER
    #: Lowest project role needed, when the action is about a project.
    project_role: ProjectRole | None = None


#: Every action a view can ask about. Deny by default: unknown names raise.
ACTIONS: dict[str, Rule] = {
    "org.read": Rule(),
    "org.manage_settings": Rule(org_role=OrgRole.ADMIN),
    "org.manage_members": Rule(org_role=OrgRole.ADMIN),
    "project.create": Rule(),
    "project.read": Rule(),
    "project.edit": Rule(project_role=ProjectRole.ADMIN),
    "project.manage_members": Rule(project_role=ProjectRole.ADMIN),
    "project.manage_workflow": Rule(project_role=ProjectRole.ADMIN),
    "task.read": Rule(),
    "task.comment": Rule(project_role=ProjectRole.COMMENTER),
    "task.write": Rule(project_role=ProjectRole.MEMBER),
    "analytics.read": Rule(),
}

_ORG_RANK = {OrgRole.MEMBER: 1, OrgRole.ADMIN: 2, OrgRole.OWNER: 3}


@dataclass(frozen=True)
class Access:
    """A signed-in account acting inside one org as an active member."""

    account: Account
    org: Org
    member: OrgMember

    @property
    def role(self) -> OrgRole:
        return OrgRole(self.member.role)

    @property
    def is_admin(self) -> bool:
        return self.role.manages_settings


def find_org(ref: str | uuid.UUID) -> Org | None:
    """An org by UUID or slug."""
    if isinstance(ref, uuid.UUID):
        return db.session.get(Org, ref)
    try:
        return db.session.get(Org, uuid.UUID(ref))
    except ValueError:
        return db.session.scalar(select(Org).where(Org.slug == ref.lower()))


def membership(org_id: uuid.UUID, account_id: uuid.UUID) -> OrgMember | None:
    return db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == org_id,
            OrgMember.account_id == account_id,
            OrgMember.active.is_(True),
        )
    )


def org_access(org_ref: str | uuid.UUID, account: Account | None) -> Access:
    """The caller's access to an org; 404 when the org is unknown or they are not an
    active member, so an org's existence never leaks."""
    org = find_org(org_ref)
    if org is None or account is None:
        raise NotFound("No such organization.")
    member = membership(org.id, account.id)
    if member is None:
        raise NotFound("No such organization.")
    return Access(account=account, org=org, member=member)


def project_role(access: Access, project_id: uuid.UUID) -> ProjectRole | None:
    """The effective project role: org owners and admins are project admins."""
    if access.is_admin:
        return ProjectRole.ADMIN
    role = db.session.scalar(
        select(ProjectMember.role).where(
            ProjectMember.project_id == project_id,
            ProjectMember.account_id == access.account.id,
        )
    )
    return ProjectRole(role) if role else None


def can(access: Access, action: str, project_id: uuid.UUID | None = None) -> bool:
    rule = ACTIONS[action]
    if _ORG_RANK[access.role] < _ORG_RANK[rule.org_role]:
        return False
    if rule.project_role is None:
        return True
    if project_id is None:
        raise ValueError(f"action {action!r} needs a project")
    role = project_role(access, project_id)
    return role is not None and role.rank >= rule.project_role.rank


def require(access: Access, action: str, project_id: uuid.UUID | None = None) -> None:
    if not can(access, action, project_id):
        raise Forbidden(_FORBIDDEN_MESSAGES.get(action, "You are not allowed to do this."))


_FORBIDDEN_MESSAGES = {
    "org.manage_settings": "Only an org owner or admin can change these settings.",
    "org.manage_members": "Only an org owner or admin can manage members.",
    "project.edit": "Only a project admin can change this project.",
    "project.manage_members": "Only a project admin can manage project members.",
    "project.manage_workflow": "Only a project admin can change states, cycles and modules.",
    "task.comment": "You need at least the commenter role in this project to comment.",
    "task.write": "You need the member role in this project to change its tasks.",
}
