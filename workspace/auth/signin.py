"""How every sign-in ends (docs/architecture.md#one-sign-in-pipeline).

Password, invitation, SSO, LDAP and link confirmation each check what is theirs to
check, then end in the same two places:

- :func:`finish`: the login recorded in the org's events and the session issued; the
  answer goes to a same-origin ``next`` or the org's home. Provisioning, linking and
  group sync come before it, in :func:`workspace.auth.login.provision_member` and the
  method's own sync.
- :func:`refuse`: a :class:`SignInRefused` says why (``reason``, for the audit log)
  and what to do (``message``, for the person). What the refused attempt half wrote
  is dropped, the reason recorded in the org's events when the org is known, and that
  audit row committed on its own so it outlives the refusal's rollback. The view's
  answer (its page, or problem+json) carries the refusal's status; a sign-in that
  waits on an account link goes to the link page instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from flask import Response, current_app, make_response, redirect, request, url_for
from flask.typing import ResponseReturnValue

from workspace.auth.guards import safe_next
from workspace.auth.sessions import start_session
from workspace.core.events import record_event
from workspace.core.models import Account, Org
from workspace.errors import ServiceError
from workspace.transaction import commit_early, discard_pending

#: How long a sign-in waits for its account link to be confirmed.
PENDING_LIFETIME = timedelta(minutes=15)
#: The cookie that binds a pending account link to the browser that signed in.
LINK_COOKIE = "ws_link"


class SignInRefused(ServiceError):
    """A refused sign-in, whatever the method.

    ``reason`` is a short code for the audit log (``state``, ``oidc``,
    ``deactivated``, ``bad_password``, ``link_required``…); ``message`` says what
    happened and what to do; ``status`` is the HTTP answer. ``method`` (``sso`` or
    ``ldap``) decides the event the org records (``auth.sso.rejected``,
    ``ldap.login_failed``) when ``org_id`` is known, with ``subject`` and the ``audit``
    details. ``raw`` is the token of the pending link a ``link_required`` refusal
    waits on, for the browser's cookie. ``sso_url`` is where a sign-in that enforced
    SSO refused goes instead (method ``enforced``, recorded as
    ``auth.sso_enforced.refused``: docs/sso.md#enforced-sso)."""

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        status: int = 403,
        org_id: uuid.UUID | None = None,
        method: str | None = None,
        subject: str | None = None,
        audit: dict[str, Any] | None = None,
        raw: str | None = None,
        sso_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reason, self.status, self.org_id = reason, status, org_id
        self.method, self.subject, self.audit = method, subject, dict(audit or {})
        self.raw, self.sso_url = raw, sso_url

    def to_problem(self) -> dict:
        """problem+json's members: one that waits on a link says where to confirm it."""
        if self.sso_url is not None:
            return {
                "status": self.status,
                "detail": self.message,
                "title": "Single sign-on required",
                "extra": {"sso_url": self.sso_url},
            }
        if self.raw is None:
            return {"status": self.status, "detail": self.message, "title": "Sign-in refused"}
        return {
            "status": self.status,
            "detail": self.message,
            "title": "Account link required",
            "extra": {"link_url": url_for("auth.link_account")},
        }


def refuse(exc: SignInRefused, answer: Callable[[SignInRefused], ResponseReturnValue]) -> Response:
    """Drop what the refused attempt half wrote, keep why in the org's events, and
    answer with ``answer(exc)`` (the view's page, or problem+json) at the refusal's
    status. A browser whose sign-in waits on an account link goes to the link page
    instead (a JSON client is told where in the problem); either way the pending link
    is held in a cookie bound to this browser and sent only to that page."""
    discard_pending("what the refused sign-in half did goes; its audit row stays")
    if exc.method in ("sso", "ldap", "enforced") and exc.org_id is not None:
        # Written out, not looked up, so the audit log's kinds can be read off the code.
        if exc.method == "enforced":
            kind = "auth.sso_enforced.refused"
        else:
            kind = "auth.sso.rejected" if exc.method == "sso" else "ldap.login_failed"
        record_event(exc.org_id, kind, subject=exc.subject, reason=exc.reason, **exc.audit)
        commit_early("a refused sign-in's audit row must survive the rollback of the refusal")
    if exc.raw is None or request.is_json:
        response = make_response(answer(exc))
        response.status_code = exc.status
    else:
        response = redirect(url_for("auth.link_account"))
    if exc.raw is not None:
        response.set_cookie(
            LINK_COOKIE,
            exc.raw,
            max_age=int(PENDING_LIFETIME.total_seconds()),
            path=url_for("auth.link_account"),
            httponly=True,
            samesite="Lax",
            secure=current_app.config.get("SESSION_COOKIE_SECURE", False),
        )
    return response


def finish(
    account: Account, orgs: Iterable[Org], *, method: str, next_path: str | None, **details
) -> str:
    """Record the login in each org it reaches (a password reaches every org of the
    account, the other methods one), issue the session, and return where the browser
    goes next: ``next_path`` when it is a same-origin path, else the first org's home."""
    orgs = list(orgs)
    for org in orgs:
        record_event(
            org.id,
            "auth.login",
            actor_id=account.id,
            subject=account.email,
            method=method,
            **details,
        )
    start_session(account, method)
    target = safe_next(next_path, default="")
    return target or url_for("core_pages.org_home", org=orgs[0].slug)
