"""Sessions in the JSON API (docs/security.md#sessions): the org's session policy,
the caller's own sessions, and an admin signing a member out everywhere."""

from __future__ import annotations

import uuid

from workspace.admin.sessions.schemas import (
    SessionOut,
    SessionPolicyIn,
    SessionPolicyOut,
    SignedOutOut,
)
from workspace.admin.sessions.service import policy_out, sessions_out, sign_out
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.auth import session_policy, sessions
from workspace.errors import NotFoundError
from workspace.security.permissions import Access

bp = api_blueprint("session_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("/session-policy")
@operation("Read the session policy", tag="sessions", action="org.read", response=SessionPolicyOut)
def get_policy(org_id: uuid.UUID, access: Access):
    """The org's maximum session lifetime and idle timeout (null: the default)."""
    return policy_out(access.org)


@bp.put("/session-policy")
@operation(
    "Set the session policy",
    tag="sessions",
    action="org.manage_settings",
    body=SessionPolicyIn,
    response=SessionPolicyOut,
    errors=(400, 401, 403, 404),
)
def put_policy(org_id: uuid.UUID, access: Access, body: SessionPolicyIn):
    """Applies at once to every open session of the org's active members. A session
    spans the account's orgs: the strictest policy among them holds. Bounds: 1 hour
    up to the default lifetime; idle 5 minutes up to the same (400 outside them)."""
    session_policy.set_policy(
        access.org,
        max_hours=body.max_lifetime_hours,
        idle_minutes=body.idle_timeout_minutes,
        actor_id=access.account.id,
    )
    return policy_out(access.org)


@bp.get("/sessions")
@operation("List your sessions", tag="sessions", action="org.read", response=list[SessionOut])
def list_sessions(org_id: uuid.UUID, access: Access):
    """The caller's open browser sessions (they span the account's orgs)."""
    return sessions_out(access.account.id)


@bp.delete("/sessions/<uuid:session_id>")
@operation("End one of your sessions", tag="sessions", action="org.read", status=204)
def end_session(org_id: uuid.UUID, session_id: uuid.UUID, access: Access):
    """That browser is signed out on its next request; 404 for a session not yours."""
    if not sessions.end_own_session(access.account.id, session_id):
        raise NotFoundError("No such session.")


@bp.post("/members/<uuid:member_id>/sign-out")
@operation(
    "Sign a member out everywhere",
    tag="members",
    action="org.manage_members",
    response=SignedOutOut,
    errors=(401, 403, 404),
)
def sign_out_member(org_id: uuid.UUID, member_id: uuid.UUID, access: Access):
    """Ends every browser session of the member's account (audited as
    ``member.signed_out``); API tokens are untouched. Only an owner signs out an owner."""
    return SignedOutOut(sessions_ended=sign_out(access, member_id))
