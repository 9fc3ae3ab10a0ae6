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
  audit row committed on its own so it outlives the refusal's rollback. The view then
  answers a page or problem+json.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import url_for

from workspace.auth.guards import safe_next
from workspace.auth.login import complete_login
from workspace.core.events import record_event
from workspace.core.models import Account, Org
from workspace.errors import ServiceError
from workspace.transaction import commit_early, discard_pending


class SignInRefused(ServiceError):
    """A refused sign-in, whatever the method.

    ``reason`` is a short code for the audit log (``state``, ``oidc``,
    ``deactivated``, ``bad_password``…); ``message`` says what happened and what to do;
    ``status`` is the HTTP answer. ``method`` (``sso`` or ``ldap``) decides the event
    the org records (``auth.sso.rejected``, ``ldap.login_failed``) when ``org_id`` is
    known, with ``subject`` and the ``audit`` details."""

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
    ) -> None:
        super().__init__(message)
        self.reason, self.status, self.org_id = reason, status, org_id
        self.method, self.subject, self.audit = method, subject, dict(audit or {})

    def at(self, org_id: uuid.UUID) -> SignInRefused:
        """The same refusal, attributed to an org (its audit log records it)."""
        self.org_id = org_id
        return self


def refuse(exc: SignInRefused) -> None:
    """Drop what the refused attempt half wrote and keep why in the org's events."""
    discard_pending("what the refused sign-in half did goes; its audit row stays")
    if exc.method == "sso":
        kind = "auth.sso.rejected"
    elif exc.method == "ldap":
        kind = "ldap.login_failed"
    else:
        return
    if exc.org_id is None:
        return
    record_event(exc.org_id, kind, subject=exc.subject, reason=exc.reason, **exc.audit)
    commit_early("a refused sign-in's audit row must survive the rollback of the refusal")


def finish(org: Org, account: Account, *, method: str, next_path: str | None, **details) -> str:
    """Record the login, issue the session, and return where the browser goes next:
    ``next_path`` when it is a same-origin path, else the org's home."""
    complete_login(org, account, method=method, **details)
    return safe_next(next_path, default=url_for("core_pages.org_home", org=org.slug))
