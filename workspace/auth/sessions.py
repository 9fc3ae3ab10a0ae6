"""Server-side, revocable browser sessions.

The signed Flask cookie carries only a random session key; the database keeps its
hash. Logout, SCIM deactivation or an admin can revoke a session and the very next
request is anonymous.

Session policy (docs/security.md#sessions): a session is one per browser and spans
the account's orgs, so the strictest maximum lifetime and idle timeout among the orgs
the account is an active member of applies to it. They are written onto the row
(``expires_at``, ``idle_timeout_minutes``) when the session starts and again when an
org's policy changes, so the check on every request reads only the row it already
loads; an org page also checks that org's own policy against the row (the org is
loaded there anyway), which covers a membership gained after the session began.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta

from flask import current_app, g, request, session
from sqlalchemy import func, select, update

from workspace.auth.models import AuthSession
from workspace.core.models import Account, Org, OrgMember
from workspace.extensions import db
from workspace.security import tokens
from workspace.transaction import commit_early
from workspace.types import utcnow

_SESSION_KEY = "sid"
_TOUCH_EVERY = timedelta(minutes=1)


def default_lifetime() -> timedelta:
    """The service's longest session; an org's policy only shortens it."""
    return timedelta(seconds=current_app.config["PERMANENT_SESSION_LIFETIME"])


def strictest_policy(account_id: uuid.UUID) -> tuple[int | None, int | None]:
    """(max hours, idle minutes): the smallest of each among the orgs the account is
    an active member of; None where no org sets one."""
    row = db.session.execute(
        select(func.min(Org.session_max_hours), func.min(Org.session_idle_minutes))
        .join(OrgMember, OrgMember.org_id == Org.id)
        .where(OrgMember.account_id == account_id, OrgMember.active.is_(True))
    ).one()
    return row[0], row[1]


def _lifetime(max_hours: int | None) -> timedelta:
    lifetime = default_lifetime()
    return min(lifetime, timedelta(hours=max_hours)) if max_hours else lifetime


def apply_policy(account_ids: list[uuid.UUID]) -> int:
    """Write the strictest policy onto the open sessions of these accounts (an org's
    policy changed); returns how many sessions were updated. Flushes."""
    rows = db.session.scalars(
        select(AuthSession).where(
            AuthSession.account_id.in_(account_ids), AuthSession.revoked_at.is_(None)
        )
    ).all()
    policies: dict[uuid.UUID, tuple[int | None, int | None]] = {}
    for row in rows:
        if row.account_id not in policies:
            policies[row.account_id] = strictest_policy(row.account_id)
        max_hours, idle = policies[row.account_id]
        row.expires_at = row.created_at + _lifetime(max_hours)
        row.idle_timeout_minutes = idle
    db.session.flush()
    return len(rows)


def _idle(row: AuthSession, idle_minutes: int | None, now) -> bool:
    seen = row.last_seen_at or row.created_at
    return idle_minutes is not None and now - seen > timedelta(minutes=idle_minutes)


def breaks_org_policy(row: AuthSession, org: Org) -> bool:
    """Whether the session is past this org's own maximum or idle limit (a member who
    joined the org after signing in has a row written before its policy applied)."""
    now = utcnow()
    if org.session_max_hours and now - row.created_at > timedelta(hours=org.session_max_hours):
        return True
    seen = g.get("session_seen_before") or row.created_at
    return bool(org.session_idle_minutes) and now - seen > timedelta(
        minutes=org.session_idle_minutes
    )


def start_session(account: Account, method: str) -> AuthSession:
    """Sign the account in on this browser, replacing any previous session key."""
    end_session()
    raw = tokens.generate("")
    max_hours, idle = strictest_policy(account.id)
    now = utcnow()
    row = AuthSession(
        account_id=account.id,
        token_hash=tokens.digest(raw),
        method=method,
        user_agent=(request.user_agent.string or "")[:300] if request else None,
        created_at=now,
        last_seen_at=now,
        expires_at=now + _lifetime(max_hours),
        idle_timeout_minutes=idle,
    )
    db.session.add(row)
    db.session.flush()
    session.clear()
    session.permanent = True
    session[_SESSION_KEY] = raw
    g.current_account = account
    g.current_session = row
    return row


def current_session() -> AuthSession | None:
    if "current_session" in g:
        return g.current_session
    g.current_session = None
    raw = session.get(_SESSION_KEY)
    if raw:
        row = db.session.scalar(
            select(AuthSession).where(AuthSession.token_hash == tokens.digest(raw))
        )
        now = utcnow()
        if row and row.revoked_at is None and _idle(row, row.idle_timeout_minutes, now):
            # Ended, not merely refused, so it leaves the member's list of sessions.
            row.revoked_at = now
            commit_early("an idle session ends whatever the request does")
        elif row and row.revoked_at is None and row.expires_at > now:
            g.session_seen_before = row.last_seen_at or row.created_at
            if row.last_seen_at is None or now - row.last_seen_at > _TOUCH_EVERY:
                row.last_seen_at = now
                commit_early("a session's last-seen touch is kept whatever the request does")
            g.current_session = row
    return g.current_session


def current_account() -> Account | None:
    if "current_account" not in g:
        row = current_session()
        g.current_account = row.account if row else None
    return g.current_account


def end_session() -> AuthSession | None:
    """Sign this browser out; returns the session that ended, if there was one."""
    row = current_session()
    if row is not None:
        row.revoked_at = utcnow()
        db.session.flush()
    session.pop(_SESSION_KEY, None)
    g.current_session = None
    g.current_account = None
    return row


_SIGN_OUT_HOOKS = "workspace.sign_out_redirects"


def on_sign_out(app, hook: Callable[[AuthSession | None], str | None]) -> None:
    """A sign-in method above auth (SSO) names where signing out of its sessions
    goes next (the IdP's end-session URL); auth cannot import it."""
    app.extensions.setdefault(_SIGN_OUT_HOOKS, []).append(hook)


def sign_out_redirect(ended: AuthSession | None) -> str | None:
    """Where the browser goes after signing out of ``ended``, when a method says."""
    for hook in current_app.extensions.get(_SIGN_OUT_HOOKS, ()):
        if target := hook(ended):
            return target
    return None


def open_sessions(account_id: uuid.UUID) -> list[AuthSession]:
    """The account's sessions still usable, most recently used first."""
    now = utcnow()
    rows = db.session.scalars(
        select(AuthSession)
        .where(
            AuthSession.account_id == account_id,
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > now,
        )
        .order_by(AuthSession.last_seen_at.desc(), AuthSession.created_at.desc())
    ).all()
    return [row for row in rows if not _idle(row, row.idle_timeout_minutes, now)]


def end_own_session(account_id: uuid.UUID, session_id: uuid.UUID) -> bool:
    """End one of the account's sessions (False: not theirs, or already ended)."""
    row = db.session.get(AuthSession, session_id)
    if row is None or row.account_id != account_id or row.revoked_at is not None:
        return False
    row.revoked_at = utcnow()
    db.session.flush()
    return True


def end_other_sessions(account_id: uuid.UUID, keep_id: uuid.UUID | None) -> int:
    """Sign out everywhere else: every open session of the account but ``keep_id``."""
    where = [AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None)]
    if keep_id is not None:
        where.append(AuthSession.id != keep_id)
    result = db.session.execute(
        update(AuthSession)
        .where(*where)
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    return result.rowcount


def revoke_sessions(account_id: uuid.UUID) -> int:
    """Revoke every open session of an account; returns how many were open. The
    caller's transaction commits it."""
    result = db.session.execute(
        update(AuthSession)
        .where(AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    return result.rowcount
