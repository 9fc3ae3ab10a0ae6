"""Local sign-in and sign-out pages. SSO and LDAP add their own forms to the
sign-in page from their packages (``identity/_signin_*.html``)."""

from __future__ import annotations

from flask import Blueprint, Flask, flash, redirect, render_template, request, url_for

from workspace.auth.guards import safe_next
from workspace.auth.passwords import check_password
from workspace.auth.sessions import current_account, end_session, start_session
from workspace.core.accounts import find_account
from workspace.core.events import record_event
from workspace.core.orgs import orgs_for_account
from workspace.extensions import db, limiter

bp = Blueprint("auth", __name__)


@bp.route("/signin", methods=["GET", "POST"])
@limiter.limit("10 per minute; 100 per hour", methods=["POST"])
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
    db.session.commit()
    return redirect(next_url)


@bp.post("/signout")
def signout():
    end_session()
    flash("You are signed out.", "info")
    return redirect(url_for("auth.signin"))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
