"""Session pages (docs/security.md#sessions): Settings > Sessions (the org's policy),
Your sessions (a member ends their own), and the members page's "Sign out
everywhere"."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, request, url_for

from workspace.admin.sessions.schemas import SessionPolicyIn
from workspace.admin.sessions.service import policy_out, sessions_out, sign_out
from workspace.auth import session_policy, sessions
from workspace.auth.guards import page, render
from workspace.errors import NotFoundError, ServiceError
from workspace.inputs import field_errors
from workspace.security.permissions import Access

bp = Blueprint("session_pages", __name__)

POLICY = "/o/<org>/settings/sessions"
MINE = "/o/<org>/sessions"


def _policy_page(access: Access, form=None, errors: dict[str, str] | None = None, status=200):
    policy = policy_out(access.org)
    return render(
        "settings/sessions.html",
        status=status,
        nav_active="settings",
        settings_active="session_pages.policy",
        policy=policy,
        form=form
        or {
            "max_lifetime_hours": policy.max_lifetime_hours or "",
            "idle_timeout_minutes": policy.idle_timeout_minutes or "",
        },
        errors=errors or {},
        min_hours=session_policy.MIN_MAX_HOURS,
        min_idle=session_policy.MIN_IDLE_MINUTES,
    )


def _policy_refused(access: Access, error: ServiceError):
    return _policy_page(access, request.form, field_errors(error), error.status)


@bp.get(POLICY)
@page(action="org.manage_settings")
def policy(access: Access):
    """Settings > Sessions: the longest a sign-in lasts, and the idle timeout."""
    return _policy_page(access)


@bp.post(POLICY, endpoint="save_policy")
@page(action="org.manage_settings", form=SessionPolicyIn, invalid=_policy_refused)
def save_policy(org: str, access: Access, form: SessionPolicyIn):
    count = session_policy.set_policy(
        access.org,
        max_hours=form.max_lifetime_hours,
        idle_minutes=form.idle_timeout_minutes,
        actor_id=access.account.id,
    )
    flash(f"Session policy saved; it now applies to {count} open session(s).", "success")
    return redirect(url_for("session_pages.policy", org=org))


@bp.get(MINE)
@page(action="org.read")
def mine(access: Access):
    """Your sessions: every browser signed in to your account, this one marked."""
    return render(
        "auth/sessions.html", nav_active="sessions", sessions=sessions_out(access.account.id)
    )


@bp.post(MINE + "/<uuid:session_id>/end", endpoint="end")
@page(action="org.read")
def end(org: str, session_id: uuid.UUID, access: Access):
    current = sessions.current_session()
    if not sessions.end_own_session(access.account.id, session_id):
        raise NotFoundError("No such session.")
    if current is not None and current.id == session_id:
        sessions.end_session()
        flash("You are signed out.", "info")
        return redirect(url_for("auth.signin"))
    flash("Session ended: that browser is signed out on its next request.", "success")
    return redirect(url_for("session_pages.mine", org=org))


@bp.post(MINE + "/end-others", endpoint="end_others")
@page(action="org.read")
def end_others(org: str, access: Access):
    current = sessions.current_session()
    count = sessions.end_other_sessions(access.account.id, current.id if current else None)
    flash(f"Signed out everywhere else ({count} session(s) ended).", "success")
    return redirect(url_for("session_pages.mine", org=org))


@bp.post("/o/<org>/settings/members/<uuid:member_id>/sign-out", endpoint="sign_out_member")
@page(action="org.manage_members")
def sign_out_member(org: str, member_id: uuid.UUID, access: Access):
    """An admin ends every session of a member's account; an owner's only by an
    owner (the refusal is the 403 page: the list offers no such button)."""
    count = sign_out(access, member_id)
    flash(f"Signed out everywhere: {count} session(s) ended.", "success")
    return redirect(url_for("admin_pages.settings_members", org=org))
