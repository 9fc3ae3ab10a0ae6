"""Agents as org members (docs/agents.md): created by admins, acting through a token.

An agent is an :class:`Account` of kind ``agent`` with an ordinary org membership
(role member), so every rollup counts its work exactly like a person's. It gets no
password and cannot sign in through SSO or LDAP (``auth.login`` refuses agents); it
acts only with its token, a ``ws_`` token bound to the agent and the org, shown once.
Its email is a placeholder under the reserved ``.invalid`` domain (RFC 2606 §2), so
it can never collide with or be claimed as a real person's address.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select

from workspace.auth import api_tokens, membership
from workspace.core.accounts import add_member
from workspace.core.events import record_event
from workspace.core.models import (
    Account,
    AccountKind,
    Org,
    OrgMember,
    OrgRole,
    ProjectRole,
)
from workspace.core.projects import get_project, set_project_member
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db

AGENT_EMAIL_DOMAIN = "agents.invalid"


@dataclass
class AgentRow:
    member: OrgMember
    account: Account
    token_prefix: str | None
    last_used_at: object | None


def create_agent(
    org: Org,
    *,
    name: str,
    description: str | None,
    project_ids: list[uuid.UUID],
    actor_id: uuid.UUID | None,
) -> tuple[Account, OrgMember, str]:
    """A new agent member, made a member of the given projects, and its raw token
    (returned here only). Commits (the token is created in its own commit)."""
    name = " ".join(name.split())
    if not name:
        raise ServiceError("Give the agent a name.", field="name")
    # Two active agents of one name cannot be told apart in the assignee lists, the
    # history or the audit log.
    taken = db.session.scalar(
        select(Account.id)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == org.id,
            OrgMember.active.is_(True),
            Account.kind == AccountKind.AGENT,
            func.lower(Account.name) == name.lower(),
        )
        .limit(1)
    )
    if taken is not None:
        raise ConflictError(
            f"An agent named “{name}” is already in this organization: choose another name.",
            field="name",
        )
    projects = []
    for pid in project_ids:
        try:
            projects.append(get_project(org.id, pid))
        except NotFoundError as exc:
            raise ServiceError(
                "One of the projects is not in this organization.", field="project_ids"
            ) from exc
    account_id = uuid.uuid4()
    account = Account(
        id=account_id,
        email=f"agent-{account_id.hex}@{AGENT_EMAIL_DOMAIN}",
        name=name,
        kind=AccountKind.AGENT,
        description=(description or "").strip() or None,
        email_verified=False,
    )
    db.session.add(account)
    db.session.flush()
    member = add_member(org, account, OrgRole.MEMBER, actor_id=actor_id, via="agent")
    for project in projects:
        set_project_member(project, account.id, ProjectRole.MEMBER)
    record_event(org.id, "agent.created", actor_id=actor_id, subject=name, agent_id=str(account.id))
    _, raw = api_tokens.create_token(account, org, f"Agent token: {name}"[:100], actor_id=actor_id)
    return account, member, raw


def rotate_agent_token(org: Org, member: OrgMember, *, actor_id: uuid.UUID | None) -> str:
    """A new token for the agent, returned here only; its old ones stop working at once
    (a token is rotated because it may have leaked: an overlap would keep the leak
    open). Recorded as the old tokens' ``api_token.revoked`` and the new one's
    ``api_token.created``, by the admin. The caller commits."""
    account = member.account
    for row in api_tokens.list_tokens(account.id, org.id):
        api_tokens.revoke_token(account.id, org.id, row.id, actor_id=actor_id)
    name = f"Agent token: {account.name}"[:100]
    _, raw = api_tokens.create_token(account, org, name, actor_id=actor_id)
    return raw


def list_agents(org_id: uuid.UUID) -> list[AgentRow]:
    members = db.session.scalars(
        select(OrgMember)
        .join(Account, Account.id == OrgMember.account_id)
        .where(
            OrgMember.org_id == org_id,
            OrgMember.active.is_(True),
            Account.kind == AccountKind.AGENT,
        )
        .order_by(Account.name, Account.id)
    )
    rows = []
    for member in members:
        token = api_tokens.newest_token(member.account_id, org_id)
        rows.append(
            AgentRow(
                member,
                member.account,
                token.prefix if token else None,
                token.last_used_at if token else None,
            )
        )
    return rows


def find_agent(org_id: uuid.UUID, account_id: uuid.UUID) -> OrgMember | None:
    """The org's active agent with this account, or None."""
    member = db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == org_id,
            OrgMember.account_id == account_id,
            OrgMember.active.is_(True),
        )
    )
    return member if member is not None and member.account.is_agent else None


def get_agent(org_id: uuid.UUID, account_id: uuid.UUID) -> OrgMember:
    member = find_agent(org_id, account_id)
    if member is None:
        raise NotFoundError("No such agent in this organization.")
    return member


def remove_agent(member: OrgMember, *, actor_id: uuid.UUID | None) -> None:
    """Deactivate the agent's membership and revoke its tokens; its work stays
    attributed to it. The caller commits."""
    # The same deactivation as any member's: membership off, tokens revoked.
    membership.deactivate_member(member, actor_id=actor_id, via="agents")
    record_event(
        member.org_id,
        "agent.removed",
        actor_id=actor_id,
        subject=member.account.name,
        agent_id=str(member.account_id),
    )
