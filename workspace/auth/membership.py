"""Ending and restoring a membership: the one pair of actions SCIM, agent removal and
an admin take, so a removed member's access stops (and comes back) the same way
whoever acts."""

from __future__ import annotations

import uuid

from sqlalchemy import update

from workspace.auth.models import ApiToken
from workspace.auth.sessions import revoke_sessions
from workspace.core import accounts
from workspace.core.models import OrgMember
from workspace.core.orgs import orgs_for_account
from workspace.extensions import db
from workspace.types import utcnow


def revoke_member_tokens(org_id: uuid.UUID, account_id: uuid.UUID) -> int:
    """Revoke every live API token the account holds for this org; returns how many."""
    result = db.session.execute(
        update(ApiToken)
        .where(
            ApiToken.account_id == account_id,
            ApiToken.org_id == org_id,
            ApiToken.revoked_at.is_(None),
        )
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    return result.rowcount


def deactivate_member(
    member: OrgMember, *, actor_id: uuid.UUID | None = None, via: str = "manual"
) -> bool:
    """Deactivate the membership (core records ``member.deactivated`` with its actor),
    revoke the member's API tokens for the org at once, and end their browser sessions
    when no org is left to them: a session is account-wide, and the membership check
    already shuts this org to it. Returns False, changing nothing, for the last owner.
    Flushes; the request commits."""
    if not accounts.end_membership(member, actor_id=actor_id, via=via):
        return False
    revoke_member_tokens(member.org_id, member.account_id)
    db.session.flush()
    if not orgs_for_account(member.account_id):
        revoke_sessions(member.account_id)
    return True


def reactivate_member(
    member: OrgMember, *, actor_id: uuid.UUID | None = None, via: str = "manual"
) -> OrgMember:
    """The one way a deactivated membership comes back (an admin, SCIM): with the role
    it had, recorded as ``member.added``. The caller checked that the actor may give
    that role (only an owner, or an owner's SCIM token, reactivates an owner); a
    sign-in never calls this. Tokens revoked at deactivation stay revoked."""
    return accounts.restore_membership(member, actor_id=actor_id, via=via)
