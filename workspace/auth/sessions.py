"""Server-side, revocable browser sessions.

The signed Flask cookie carries only a random session key; the database keeps its
hash. Logout, SCIM deactivation or an admin can revoke a session and the very next
request is anonymous.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from flask import current_app, g, request, session
from sqlalchemy import select, update

from workspace.auth.models import AuthSession
from workspace.core.models import Account
from workspace.extensions import db
from workspace.security import tokens
from workspace.transaction import commit_early
from workspace.types import utcnow

_SESSION_KEY = "sid"
_TOUCH_EVERY = timedelta(minutes=1)


def start_session(account: Account, method: str) -> AuthSession:
    """Sign the account in on this browser, replacing any previous session key."""
    end_session()
    raw = tokens.generate("")
    lifetime = timedelta(seconds=current_app.config["PERMANENT_SESSION_LIFETIME"])
    row = AuthSession(
        account_id=account.id,
        token_hash=tokens.digest(raw),
        method=method,
        user_agent=(request.user_agent.string or "")[:300] if request else None,
        expires_at=utcnow() + lifetime,
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
        if row and row.revoked_at is None and row.expires_at > now:
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


def end_session() -> None:
    row = current_session()
    if row is not None:
        row.revoked_at = utcnow()
        db.session.flush()
    session.pop(_SESSION_KEY, None)
    g.current_session = None
    g.current_account = None


def revoke_sessions(account_id: uuid.UUID) -> int:
    """Revoke every open session of an account; returns how many were open. The
    caller's transaction commits it."""
    result = db.session.execute(
        update(AuthSession)
        .where(AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return result.rowcount
