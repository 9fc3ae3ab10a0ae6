"""An org's session policy and an admin's "sign out everywhere"
(docs/security.md#sessions). The policy is two numbers on the org; every open
session of its active members is brought in line when they change."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from workspace.auth.sessions import apply_policy, default_lifetime, revoke_sessions
from workspace.core.events import record_event
from workspace.core.models import Org, OrgMember
from workspace.errors import ServiceError
from workspace.extensions import db

#: Bounds of the form: an hour is the shortest sign-in that lets anyone work; the
#: longest is the service's own lifetime (the policy only shortens it).
MIN_MAX_HOURS = 1
#: Shorter than five minutes signs people out while they read a long task.
MIN_IDLE_MINUTES = 5


def max_hours_limit() -> int:
    return int(default_lifetime().total_seconds() // 3600)


def check_policy(max_hours: int | None, idle_minutes: int | None) -> None:
    """400 naming the field, for a value outside the bounds."""
    top = max_hours_limit()
    if max_hours is not None and not MIN_MAX_HOURS <= max_hours <= top:
        raise ServiceError(
            f"Enter a maximum session lifetime from {MIN_MAX_HOURS} to {top} hours, "
            "or leave it blank for the default.",
            field="max_lifetime_hours",
        )
    top_idle = top * 60
    if idle_minutes is not None and not MIN_IDLE_MINUTES <= idle_minutes <= top_idle:
        raise ServiceError(
            f"Enter an idle timeout from {MIN_IDLE_MINUTES} to {top_idle} minutes, "
            "or leave it blank for none.",
            field="idle_timeout_minutes",
        )


def set_policy(
    org: Org, *, max_hours: int | None, idle_minutes: int | None, actor_id: uuid.UUID
) -> int:
    """Set the org's policy and apply it to its members' open sessions at once;
    returns how many sessions were brought in line."""
    check_policy(max_hours, idle_minutes)
    org.session_max_hours, org.session_idle_minutes = max_hours, idle_minutes
    record_event(
        org.id,
        "org.session_policy_changed",
        actor_id=actor_id,
        max_lifetime_hours=max_hours,
        idle_timeout_minutes=idle_minutes,
    )
    db.session.flush()
    members = db.session.scalars(
        select(OrgMember.account_id).where(OrgMember.org_id == org.id, OrgMember.active.is_(True))
    ).all()
    return apply_policy(list(members))


def sign_out_member(member: OrgMember, *, actor_id: uuid.UUID) -> int:
    """End every browser session of the member's account (a session spans the
    account's orgs, so this signs them out of all of them); audited in this org.
    Returns how many sessions were open."""
    ended = revoke_sessions(member.account_id)
    record_event(
        member.org_id,
        "member.signed_out",
        actor_id=actor_id,
        subject=member.account.email,
        sessions=ended,
    )
    db.session.flush()
    return ended
