"""What every HTML page shares: the home redirect, template context, HTMX caching,
static files cached by fingerprint, and the security headers
(docs/security.md#rendering-isolation)."""

from __future__ import annotations

import functools
import hashlib
import secrets
from datetime import datetime, tzinfo
from pathlib import Path

from flask import Blueprint, Flask, current_app, g, has_request_context, redirect, request, url_for
from jinja2 import pass_context
from jinja2.runtime import Context

from workspace.auth.guards import page
from workspace.auth.sessions import current_account
from workspace.core.dates import day, moment
from workspace.core.names import with_article
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


def csp_nonce() -> str:
    """This response's script nonce: made on first use, so only a page that renders
    an inline script (the printable export) carries one in its policy."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(18)
    return g.csp_nonce


def content_security_policy(nonce: str | None) -> str:
    """Nothing from another origin: scripts, styles, images, fonts and XHR come from
    this server (or are inline ``data:`` images); an inline script runs only with the
    response's nonce, and no event-handler attribute runs at all. Inline styles stay
    allowed: Plotly injects its ``<style>`` and a few templates use ``style=``."""
    scripts = "'self'" + (f" 'nonce-{nonce}'" if nonce else "")
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


#: A fingerprinted static URL names one version of the file for good.
IMMUTABLE = "public, max-age=31536000, immutable"


@functools.lru_cache(maxsize=256)
def _fingerprint(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def static_fingerprint(filename: str) -> str | None:
    """A short hash of a static file's content (None when there is no such file). The
    file's mtime and size key the cache, so an edited file gets a new fingerprint."""
    folder = current_app.static_folder
    path = Path(folder or "", filename)
    try:
        stat = path.stat()
        if not path.resolve().is_relative_to(Path(folder or "").resolve()):
            return None
    except (OSError, ValueError):
        return None
    return _fingerprint(str(path), stat.st_mtime_ns, stat.st_size)


@pass_context
def when(
    context: Context,
    at: datetime | None,
    empty: str = "never",
    zone: tzinfo | None = None,
    **how: bool,
) -> str:
    """``at`` in ``zone``, else in the zone of the org the page is about, else in its
    own (UTC for what the database holds); ``moment``'s ``seconds``, ``clock`` and
    ``date`` pass through. ``empty`` for no moment."""
    if at is None:
        return empty
    if zone is None:
        org = context.get("current_org")
        zone = org.zone if org is not None else at.tzinfo
    return moment(at, zone, **how)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    # Every page writes a calendar day one way, "27 Nov 2026" (docs/tasks.md#dates).
    app.add_template_filter(day, "day")
    # ...and a moment one way, in the org's time zone ("27 Nov 2026, 14:05 CET"), the
    # zone that decides its "today"; pages outside an org (your sessions and tokens,
    # the operator's pages) say UTC.
    app.add_template_filter(when, "when")
    app.add_template_filter(with_article, "with_article")

    @app.url_defaults
    def static_version(endpoint: str, values: dict) -> None:
        # /static/js/app.js?v=<fingerprint>: the browser keeps it for a year and asks
        # again only when the file (so the page's URL for it) changes, instead of
        # revalidating every script and stylesheet on every page view.
        if endpoint == "static" and "filename" in values and "v" not in values:
            version = static_fingerprint(values["filename"])
            if version:
                values["v"] = version

    @app.context_processor
    def page_context():
        if not has_request_context():
            return {}  # a worker renders a document (a PDF), not a page for someone
        account = current_account()
        access = g.get("access")
        return {
            "current_account": account,
            "current_access": access,
            "current_org": access.org if access else None,
            "user_orgs": orgs_for_account(account.id) if account else [],
            "csp_nonce": csp_nonce,
        }

    @app.after_request
    def response_headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if request.path.startswith("/static/"):
            # A cache key, not a page's input: any other value misses (tests/test_web.py).
            version = request.args.get("v")
            filename = (request.view_args or {}).get("filename", "")
            fresh = version is not None and version == static_fingerprint(filename)
            if response.status_code in (200, 304) and fresh:
                response.headers["Cache-Control"] = IMMUTABLE
            return response
        if response.mimetype == "text/html":
            # Every HTML answer, pages and fragments and the API's export.html alike.
            response.headers["Content-Security-Policy"] = content_security_policy(
                g.get("csp_nonce")
            )
        # Every dynamic answer is one person's view of one org, and some carry a
        # token shown once: no shared or disk cache keeps them.
        response.headers.setdefault("Cache-Control", "no-store")
        if not request.path.startswith(("/api/", "/scim/")):
            # The same URL answers a full page or a fragment; caches must tell them apart.
            response.vary.add("HX-Request")
        if response.mimetype == "text/html" or not request.path.startswith(("/api/", "/scim/")):
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response
