"""The one place that answers "may this member do this here".

Every org route declares its action once (``@operation(..., action=...)`` for the JSON
API, ``@page(action=...)`` for HTML); the request wrapper loads the caller's
:class:`Access` through :func:`org_access` (another org, or not a member: 404, so an
org's existence never leaks) and calls :func:`authorize_route`, which checks the
action's :class:`Rule` against the org role, the project role of the project named in
the URL, and, for object rules, the object a loader hands to :func:`require_object`.

Everything raises the service errors (:class:`NotFoundError`, :class:`ForbiddenError`),
so callers never catch two kinds of failure. Unknown action names raise ``KeyError``:
deny by default.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from workspace.core.models import (
    Account,
    Org,
    OrgMember,
    OrgRole,
    Project,
    ProjectMember,
    ProjectRole,
    Task,
)
from workspace.core.orgs import active_membership, find_org
from workspace.core.projects import get_project
from workspace.core.tasks import get_task, get_task_by_key
from workspace.errors import ForbiddenError, NotFoundError
from workspace.extensions import db

#: An object-level check: ``(access, obj)`` → raises when the caller may not.
ObjectRule = Callable[["Access", Any], None]


@dataclass(frozen=True)
class Rule:
    #: Lowest org role that may act (owner > admin > member).
    org_role: OrgRole = OrgRole.MEMBER
    #: Lowest project role needed, when the action is about a project.
    project_role: ProjectRole | None = None
    #: A check on the object itself (a dashboard's owner), applied by its loader.
    object_rule: ObjectRule | None = None
    #: Who the caller must be: ``"person"``, ``"agent"`` or ``None`` for either.
    caller: str | None = None
    #: What a refused caller reads.
    message: str = "You are not allowed to do this."
    #: Whether an agent may take the action on an ordinary membership. An agent acts
    #: only inside the projects it was granted (its project roles), so the actions that
    #: would widen its reach (creating projects or dashboards, managing the org) say
    #: False: an agent takes them only when an org owner or admin has explicitly
    #: given it the admin role (docs/security.md#agents).
    agents: bool = True
    #: Whether the action only reads analytics, so its GETs may read from a replica
    #: once authorized (workspace/replica.py, docs/scaling.md#read-replicas).
    replica: bool = False


# -- object rules ------------------------------------------------------------------------
# Duck-typed on purpose: the permission layer sits below the capabilities that own
# these models, so it reads their attributes without importing their classes.


def dashboard_readable(access: Access, dashboard: Any) -> None:
    """Your own dashboards and every Workspace one; someone's private one is a 404."""
    if dashboard is None or dashboard.org_id != access.org.id:
        raise NotFoundError("No such dashboard.")
    if dashboard.owner_id != access.account.id and dashboard.visibility != "workspace":
        raise NotFoundError("No such dashboard.")


def job_readable(access: Access, job: Any) -> None:
    """A job is its asker's: it carries what they could see (a PDF of their view)."""
    if job is None or job.org_id != access.org.id or job.account_id != access.account.id:
        raise NotFoundError("No such job.")


def dashboard_editable(access: Access, dashboard: Any) -> None:
    """Only the owner changes a dashboard; publishing changes who reads, not who edits."""
    dashboard_readable(access, dashboard)
    if dashboard.owner_id != access.account.id:
        raise ForbiddenError("Only the dashboard's owner can change it.")


#: Every action a route can declare. Deny by default: unknown names raise.
ACTIONS: dict[str, Rule] = {
    "org.read": Rule(),
    "org.manage_settings": Rule(
        org_role=OrgRole.ADMIN,
        agents=False,
        message="Only an org owner or admin can see or change these settings.",
    ),
    "org.enforce_sso": Rule(
        org_role=OrgRole.OWNER,
        agents=False,
        message="Only an org owner can require single sign-on or choose break-glass owners.",
    ),
    #: Webhooks (docs/delivery.md#webhooks): their URLs and secrets carry the org's
    #: whole audit stream, so only owners and admins, and agents never by default.
    "webhook.manage": Rule(
        org_role=OrgRole.ADMIN,
        agents=False,
        message="Only an org owner or admin can manage webhooks.",
    ),
    "org.manage_members": Rule(
        org_role=OrgRole.ADMIN,
        agents=False,
        message="Only an org owner or admin can manage members.",
    ),
    "project.create": Rule(agents=False),
    "project.read": Rule(),
    "project.edit": Rule(
        project_role=ProjectRole.ADMIN, message="Only a project admin can change this project."
    ),
    "project.manage_members": Rule(
        project_role=ProjectRole.ADMIN,
        message="Only a project admin can manage project members.",
    ),
    "project.manage_workflow": Rule(
        project_role=ProjectRole.ADMIN,
        message="Only a project admin can change states, cycles and modules.",
    ),
    "task.read": Rule(),
    "task.comment": Rule(
        project_role=ProjectRole.COMMENTER,
        message="You need at least the commenter role in this project to comment.",
    ),
    "task.write": Rule(
        project_role=ProjectRole.MEMBER,
        message="You need the member role in this project to change its tasks.",
    ),
    #: Following a task: anyone who reads it (docs/inbox.md).
    "task.subscribe": Rule(),
    #: Your own inbox and My work: every member, agents included, sees only their own.
    "inbox.read": Rule(),
    "inbox.mark_read": Rule(),
    #: Saved views (docs/saved_views.md): whoever reads the project uses the shared
    #: ones; saving takes the member role, and a person's (not an agent's) screen.
    "saved_view.read": Rule(),
    "saved_view.save": Rule(
        project_role=ProjectRole.MEMBER,
        agents=False,
        message="You need the member role in this project to save views.",
    ),
    "analytics.read": Rule(replica=True),
    #: The command menu (Ctrl-K): it lists only what the caller may open, item by item.
    "command_menu.use": Rule(),
    #: The PQL box's suggestions: names from the org's live projects and members only.
    "pql.suggest": Rule(),
    "dashboard.create": Rule(agents=False),
    "dashboard.read": Rule(object_rule=dashboard_readable, replica=True),
    "job.read": Rule(object_rule=job_readable),
    "dashboard.edit": Rule(object_rule=dashboard_editable, agents=False),
    #: Dashboard subscriptions (docs/delivery.md#subscriptions): whoever reads the
    #: dashboard subscribes themselves; subscribing someone else is the dashboard's
    #: editor's, checked by the service. Agents read no mail.
    "dashboard.subscribe": Rule(object_rule=dashboard_readable, agents=False),
    #: Alerts (docs/delivery.md#alerts): a member's own; creating one takes reading its
    #: dashboard, checked by the service. Agents read no mail.
    "alert.read": Rule(agents=False),
    "alert.write": Rule(agents=False),
    "ai.ask": Rule(),
    "agent.use_tools": Rule(
        caller="agent",
        message=(
            "The agent tool interface takes an agent's token; an admin creates agents "
            "and their tokens in Settings > Agents."
        ),
    ),
}

_ORG_RANK = {OrgRole.MEMBER: 1, OrgRole.ADMIN: 2, OrgRole.OWNER: 3}


@dataclass(frozen=True)
class Access:
    """A signed-in account acting inside one org as an active member."""

    account: Account
    org: Org
    member: OrgMember
    #: The action the route declared; object loaders check against it.
    action: str | None = field(default=None, compare=False)
    #: The project and task the URL names, loaded once by the gate so no view loads
    #: them again (a task's project is its own).
    project: Project | None = field(default=None, compare=False)
    task: Task | None = field(default=None, compare=False)

    @property
    def role(self) -> OrgRole:
        return OrgRole(self.member.role)

    @property
    def is_admin(self) -> bool:
        return self.role.manages_settings


def org_access(org_ref: str | uuid.UUID, account: Account | None) -> Access:
    """The caller's access to an org; 404 when the org is unknown or they are not an
    active member, so an org's existence never leaks."""
    org = find_org(org_ref)
    if org is None or account is None:
        raise NotFoundError("No such organization.")
    member = active_membership(org.id, account.id)
    if member is None:
        raise NotFoundError("No such organization.")
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
    """Whether the caller may do ``action`` (in ``project_id`` for project actions)."""
    rule = ACTIONS[action]
    if rule.caller == "agent" and not access.account.is_agent:
        return False
    if _agent_refused(access, rule):
        return False
    if _ORG_RANK[access.role] < _ORG_RANK[rule.org_role]:
        return False
    if rule.project_role is None:
        return True
    if project_id is None:
        raise ValueError(f"action {action!r} needs a project")
    role = project_role(access, project_id)
    return role is not None and role.rank >= rule.project_role.rank


AGENT_REFUSED = (
    "An agent cannot do this: it acts only inside the projects it was granted. "
    "An org owner or admin can give it this right by making it an org admin."
)


def _agent_refused(access: Access, rule: Rule) -> bool:
    """An agent taking an action agents may not take, without the explicit admin role."""
    return access.account.is_agent and not rule.agents and not access.is_admin


def require(access: Access, action: str, project_id: uuid.UUID | None = None) -> None:
    """Raise :class:`ForbiddenError` with the action's message unless :func:`can`."""
    if not can(access, action, project_id):
        rule = ACTIONS[action]
        raise ForbiddenError(AGENT_REFUSED if _agent_refused(access, rule) else rule.message)


def require_object(access: Access, obj: Any, action: str | None = None) -> None:
    """Apply the object rule of ``action`` (default: the route's declared action)."""
    name = action or access.action
    if name is None:
        raise RuntimeError("require_object needs an action: the route declared none")
    rule = ACTIONS[name]
    if rule.object_rule is not None:
        rule.object_rule(access, obj)


def can_object(access: Access, obj: Any, action: str) -> bool:
    """Whether ``action`` is allowed on ``obj`` (its role rule and its object rule):
    what a page asks to decide whether to show the controls, e.g. a dashboard's
    owner controls under ``"dashboard.edit"``."""
    try:
        require(access, action)
        require_object(access, obj, action)
    except (ForbiddenError, NotFoundError):
        return False
    return True


def objects_in_url(
    access: Access, url_args: Mapping[str, Any]
) -> tuple[Project | None, Task | None]:
    """The project and task a URL names, the task by id or by its key
    (``/tasks/WEB-12``); 404 when either is not in the caller's org (never a 403 that
    would confirm it exists elsewhere)."""
    if "project_id" in url_args:
        return get_project(access.org.id, url_args["project_id"]), None
    task = None
    if "task_id" in url_args:
        task = get_task(access.org.id, url_args["task_id"])
    elif "task_key" in url_args:
        task = get_task_by_key(access.org.id, url_args["task_key"])
    return (task.project, task) if task is not None else (None, None)


def authorize_route(access: Access, action: str, url_args: Mapping[str, Any]) -> Access:
    """The gate every org route passes: the declared ``action`` against the caller's
    roles and the project the URL names. Returns the access with the action (for
    object loaders) and the objects the URL names."""
    rule = ACTIONS[action]
    project, task = objects_in_url(access, url_args)
    if rule.project_role is not None and project is None:
        raise RuntimeError(f"action {action!r} needs a project in the URL")
    require(access, action, project.id if project is not None else None)
    return replace(access, action=action, project=project, task=task)
