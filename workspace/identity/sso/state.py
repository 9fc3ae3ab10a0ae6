"""The signed, ten-minute, single-use, browser-bound ``state`` (docs/sso.md#signing-in; RFC 6749
§10.12 for why state must bind the request to the browser).

The state is ``itsdangerous``-signed JSON naming an :class:`SsoAttempt` row and when
it was issued. The row keeps the PKCE verifier and nonce, the hash of a random value
kept in a cookie on the browser that started, and ``used_at`` for single use.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime, timedelta

from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import delete, update

from workspace.auth.signin import SignInRefused
from workspace.extensions import db
from workspace.identity.sso.models import SsoAttempt
from workspace.security.crypto import seal
from workspace.transaction import commit_early
from workspace.types import utcnow

LIFETIME = timedelta(minutes=10)
BINDING_COOKIE = "ws_sso_binding"
_SALT = "workspace.sso.state"


def _refused(message: str) -> SignInRefused:
    """A refused state: 400, reason ``state``, the message shown to the person. No
    org is known yet, so nothing is recorded."""
    return SignInRefused(message, reason="state", status=400)


def now() -> datetime:
    """The clock for state expiry (tests freeze it)."""
    return utcnow()


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def binding_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def new_binding() -> str:
    return secrets.token_urlsafe(32)


def issue(
    org_id: uuid.UUID, *, nonce: str, code_verifier: str, binding: str, next_path: str | None
) -> str:
    """Record the attempt (flushes) and return its signed state."""
    issued = now()
    # Old attempts are worthless after ten minutes; keep the table small.
    db.session.execute(delete(SsoAttempt).where(SsoAttempt.created_at < issued - timedelta(days=1)))
    attempt = SsoAttempt(
        id=uuid.uuid4(),
        org_id=org_id,
        nonce=nonce,
        browser_hash=binding_hash(binding),
        next_path=next_path,
        created_at=issued,
        code_verifier_sealed="",
    )
    attempt.code_verifier_sealed = seal(code_verifier, attempt.id)
    db.session.add(attempt)
    db.session.flush()
    return _serializer().dumps({"a": attempt.id.hex, "t": int(issued.timestamp())})


def consume(state: str | None, binding: str | None) -> SsoAttempt:
    """The attempt behind a state, marked used. Refuses tampered, unknown, expired,
    foreign-browser and already-used states. Commits the use mark, so a replay in a
    parallel request loses."""
    if not state:
        raise _refused("The sign-in response has no state. Start the sign-in again.")
    try:
        payload = _serializer().loads(state)
        attempt_id = uuid.UUID(payload["a"])
        issued_ts = int(payload["t"])
    except (BadSignature, KeyError, TypeError, ValueError) as exc:
        raise _refused(
            "The sign-in state is invalid or was tampered with. Start the sign-in again."
        ) from exc
    current = now()
    if current.timestamp() - issued_ts > LIFETIME.total_seconds():
        raise _refused(
            "The sign-in took longer than ten minutes and expired. Start the sign-in again."
        )
    attempt = db.session.get(SsoAttempt, attempt_id)
    if attempt is None or current - attempt.created_at > LIFETIME:
        raise _refused("The sign-in state is unknown or expired. Start the sign-in again.")
    if attempt.used_at is not None:
        raise _refused("This sign-in response was already used. Start the sign-in again.")
    if not binding or not secrets.compare_digest(binding_hash(binding), attempt.browser_hash):
        raise _refused(
            "This sign-in was started in another browser (or its cookie was "
            "lost). Start the sign-in again from this browser."
        )
    result = db.session.execute(
        update(SsoAttempt)
        .where(SsoAttempt.id == attempt.id, SsoAttempt.used_at.is_(None))
        .values(used_at=current)
        .execution_options(synchronize_session=False)
    )
    # Gone for good before the IdP is called, so a replayed callback finds it used
    # even when this sign-in later fails and its request rolls back.
    commit_early("an SSO state is consumed before the IdP is called; a replay must fail")
    if result.rowcount != 1:
        raise _refused("This sign-in response was already used. Start the sign-in again.")
    return attempt
