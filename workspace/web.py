"""What every HTML page shares: the home redirect, template context, HTMX caching."""

from __future__ import annotations

from flask import Blueprint, Flask, g, redirect, request, url_for

from workspace.auth.guards import page
from workspace.auth.sessions import current_account
from workspace.core.orgs import orgs_for_account

bp = Blueprint("web", __name__)


@bp.get("/")
@page()
def home():
    """Signed in: the first org's home (or creating one). Otherwise: sign in."""
    orgs = orgs_for_account(current_account().id)
    if not orgs:
        return redirect(url_for("core_pages.new_org"))
    return redirect(url_for("core_pages.org_home", org=orgs[0].slug))


@bp.get("/healthz")
def healthz():
    return {"ok": True}


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.context_processor
    def page_context():
        account = current_account()
        access = g.get("access")
        return {
            "current_account": account,
            "current_access": access,
            "current_org": access.org if access else None,
            "user_orgs": orgs_for_account(account.id) if account else [],
        }

    @app.after_request
    def response_headers(response):
        if request.path.startswith("/static/"):
            return response
        # Every dynamic answer is one person's view of one org, and some carry a
        # token shown once: no shared or disk cache keeps them.
        response.headers.setdefault("Cache-Control", "no-store")
        if not request.path.startswith(("/api/", "/scim/")):
            # The same URL answers a full page or a fragment; caches must tell them apart.
            response.vary.add("HX-Request")
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response
