"""The session pages' and API's shared steps: the policy and session lists as
shown, and the admin's sign-out under the members page's owner rule."""

from __future__ import annotations

import uuid

from workspace.admin.sessions.schemas import SessionOut, SessionPolicyOut
from workspace.auth import session_policy, sessions
from workspace.core import accounts
from workspace.core.models import Org, OrgRole
from workspace.errors import ForbiddenError
from workspace.security.permissions import Access

OWNERS_ONLY = "Only an owner can sign an owner out."


def policy_out(org: Org) -> SessionPolicyOut:
    return SessionPolicyOut(
        max_lifetime_hours=org.session_max_hours,
        idle_timeout_minutes=org.session_idle_minutes,
        default_max_lifetime_hours=session_policy.max_hours_limit(),
    )


def sessions_out(account_id: uuid.UUID) -> list[SessionOut]:
    mine = sessions.current_session()
    return [
        SessionOut.model_validate(row).model_copy(
            update={"current": mine is not None and row.id == mine.id}
        )
        for row in sessions.open_sessions(account_id)
    ]


def sign_out(access: Access, member_id: uuid.UUID) -> int:
    """The admin's "sign out everywhere", under the members page's owner rule."""
    member = accounts.get_member(access.org.id, member_id)
    if member.role == OrgRole.OWNER and access.role != OrgRole.OWNER:
        raise ForbiddenError(OWNERS_ONLY)
    return session_policy.sign_out_member(member, actor_id=access.account.id)
