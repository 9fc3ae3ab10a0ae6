"""Local sign-in and sign-out pages, and a member's personal access tokens. SSO and
LDAP add their own forms to the sign-in page from their packages
(``identity/_signin_*.html``)."""

from __future__ import annotations

import uuid

from flask import Blueprint, Flask, flash, redirect, render_template, request, url_for

from workspace.auth import api_tokens
from workspace.auth import models as _models  # noqa: F401  (maps the auth tables)
from workspace.auth.guards import page, safe_next
from workspace.auth.passwords import check_password
from workspace.auth.schemas import TokenCreate
from workspace.auth.sessions import current_account, end_session, start_session
from workspace.core.accounts import find_account
from workspace.core.events import record_event
from workspace.core.orgs import orgs_for_account
from workspace.errors import InputError, NotFoundError
from workspace.extensions import limiter
from workspace.inputs import parse_form
from workspace.security.permissions import Access
from workspace.transaction import transactional

bp = Blueprint("auth", __name__)


@bp.route("/signin", methods=["GET", "POST"])
@limiter.limit("10 per minute; 100 per hour", methods=["POST"])
@transactional
def signin():
    """Email and password sign-in."""
    next_url = safe_next(request.values.get("next"))
    if request.method == "GET":
        if current_account() is not None:
            return redirect(next_url)
        return render_template("auth/signin.html", next=next_url, email="")
    email = (request.form.get("email") or "").strip()
    password = request.form.get("password") or ""
    account = find_account(email) if email else None
    # check_password runs even for unknown emails so timing does not reveal accounts.
    if not check_password(account, password) or account.is_agent:
        return render_template(
            "auth/signin.html",
            next=next_url,
            email=email,
            error="That email and password do not match an account.",
        ), 401
    start_session(account, "password")
    for org in orgs_for_account(account.id):
        record_event(
            org.id, "auth.login", actor_id=account.id, subject=account.email, method="password"
        )
    return redirect(next_url)


@bp.post("/signout")
@transactional
def signout():
    end_session()
    flash("You are signed out.", "info")
    return redirect(url_for("auth.signin"))


def _tokens_page(
    access: Access, *, new_token: str | None = None, errors: dict[str, str] | None = None
) -> str:
    return render_template(
        "auth/tokens.html",
        nav_active="tokens",
        new_token=new_token,
        errors=errors or {},
        token_list=api_tokens.list_tokens(access.account.id, access.org.id),
    )


@bp.route("/o/<org>/tokens", methods=["GET", "POST"])
@page(action="org.read")
def tokens(org: str, access: Access):
    """Personal access tokens for the JSON API; a new one is shown once."""
    if request.method == "GET":
        return _tokens_page(access)
    try:
        form = parse_form(TokenCreate)
    except InputError as exc:
        return _tokens_page(access, errors=exc.by_field), 400
    _, raw = api_tokens.create_token(access.account, access.org, form.name)
    # Rendered, not redirected: the token is shown on this response only.
    return _tokens_page(access, new_token=raw)


@bp.post("/o/<org>/tokens/<uuid:token_id>/revoke")
@page(action="org.read")
def revoke_token(org: str, token_id: uuid.UUID, access: Access):
    if not api_tokens.revoke_token(access.account.id, access.org.id, token_id):
        raise NotFoundError("No such token.")
    flash("Token revoked. Anything using it stops working now.", "success")
    return redirect(url_for("auth.tokens", org=org))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
