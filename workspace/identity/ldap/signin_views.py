"""``POST /auth/ldap/login``: directory sign-in for browsers (form) and clients (JSON).

CSRF: the view is exempt from the automatic check because a JSON client has no
session and so no ambient credential for a forged request to ride on, and a
cross-site page cannot send ``application/json`` without a CORS preflight. Browser
form posts are still checked by hand, so a third-party page cannot sign a visitor
into someone else's account (login CSRF).
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)
from flask_limiter import RateLimitExceeded

from workspace.api.problems import service_problem
from workspace.auth import signin_limits
from workspace.auth.guards import safe_next
from workspace.auth.signin import SignInRefused, finish, refuse
from workspace.extensions import csrf, limiter
from workspace.identity.ldap.signin import (
    MAX_ORG_REF,
    attributed,
    directory_login,
    find_signin_org,
    refused,
)
from workspace.security.request_guard import body_or_none, peek_fields, reads_own_body
from workspace.transaction import transactional

bp = Blueprint("ldap_signin", __name__)

#: Counted only when a sign-in fails, so people who type their password right are
#: never slowed down (docs/security.md#sign-in-limits): per (org, username, address)
#: against guessing one person's password, and more loosely per address against
#: guessing across names. No limit is keyed by the username alone, so nobody can lock
#: a colleague out by failing on purpose from elsewhere.
FAILED_PER_ADDRESS = signin_limits.FAILED_PER_ADDRESS
FAILED_PER_USERNAME = signin_limits.FAILED_PER_NAME_AND_ADDRESS


def _failed(response: Response) -> bool:
    return response.status_code >= 400


def _fields() -> dict[str, str]:
    return _strings(body_or_none())


def _counted_fields() -> dict[str, str]:
    """The fields the limiter's key and the 429 handler read. A body too large or too
    deep to parse still names its org and username near its start: read from there,
    so a spent budget answers 429 whatever follows the name (docs/security.md)."""
    data = body_or_none()  # never raises
    return _strings(peek_fields(("org", "username")) if data is None else data)


def _strings(data: Any) -> dict[str, str]:
    if not hasattr(data, "get"):
        data = {}
    return {
        key: value if isinstance(value := data.get(key), str) else ""
        for key in ("org", "username", "password", "next")
    }


def _username_key() -> str:
    """The username as the limits count it (NFKC and case-folded, so a full-width
    spelling is the same name), with the org and the client address."""
    fields = _counted_fields()
    org = signin_limits.canonical_name(fields["org"])
    return signin_limits.name_and_address_key(f"ldap-login:{org}", fields["username"])


@bp.post("/auth/ldap/login")
@reads_own_body  # NUL in a username is an audited failed attempt, escaped per RFC 4515
@limiter.limit(FAILED_PER_ADDRESS, deduct_when=_failed)
@limiter.limit(FAILED_PER_USERNAME, key_func=_username_key, deduct_when=_failed)
@transactional
def login():
    """Check directory credentials (docs/ldap.md#sign-in-steps) and start a session."""
    if not request.is_json and current_app.config.get("WTF_CSRF_ENABLED", True):
        csrf.protect()
    if request.is_json and not isinstance(body_or_none(), dict):
        return _answer(
            refused("bad_request", "Send a JSON object with org, username and password.", 400),
            {},
        )
    fields = _fields()
    org_ref, username = fields["org"].strip(), fields["username"].strip()
    org = find_signin_org(org_ref)
    if org is None:
        return _answer(_unknown_org(org_ref), fields)
    try:
        account, created = directory_login(org, username, fields["password"])
    except SignInRefused as exc:
        return _answer(attributed(exc, org, username, request.remote_addr), fields)
    target = finish(
        account, [org], method="ldap", next_path=fields["next"], account_created=created
    )
    if request.is_json:
        return jsonify(ok=True, redirect=target)
    return redirect(target)


def _unknown_org(org_ref: str) -> SignInRefused:
    if not org_ref:
        message = "Enter your organization's short name (as in its address, e.g. acme)."
    elif len(org_ref) > MAX_ORG_REF:
        message = f"An organization's short name has at most {MAX_ORG_REF} characters."
    else:
        message = f"There is no organization called “{org_ref}”."
    return refused("unknown_org", message, 400 if not org_ref else 404)


def _answer(exc: SignInRefused, fields: dict[str, str]):
    """Refuse (:func:`workspace.auth.signin.refuse`), answering problem+json to a JSON
    client, else the sign-in page again."""
    if request.is_json:
        return refuse(exc, service_problem)
    return refuse(
        exc,
        lambda exc: render_template(
            "auth/signin.html",
            next=safe_next(fields.get("next")),
            email="",
            ldap_error=exc.message,
            ldap_org=fields.get("org", ""),
            ldap_username=fields.get("username", ""),
        ),
    )


@bp.errorhandler(RateLimitExceeded)
def too_many(_error: RateLimitExceeded):
    exc = refused(
        "rate_limited", "Too many failed sign-in attempts. Wait a few minutes, then try again.", 429
    )
    fields = _counted_fields()
    org = find_signin_org(fields["org"].strip())
    if org is not None:
        # The org's admins see the lockout in the audit log, as they see failures.
        attributed(exc, org, fields["username"].strip(), request.remote_addr)
    return _answer(exc, fields)


def init_app(app) -> None:
    csrf.exempt(login)
    app.register_blueprint(bp)
