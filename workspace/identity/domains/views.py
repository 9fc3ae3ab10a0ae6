"""The Domains settings page: add a domain, see the TXT record to create, verify it,
remove it. Verify and remove update one row through HTMX; without JavaScript the
forms post and come back to the page."""

from __future__ import annotations

import uuid

from flask import flash, redirect, render_template, request, url_for

from workspace.auth.guards import login_required, page_access
from workspace.errors import ServiceError
from workspace.extensions import db, htmx
from workspace.identity.domains import service
from workspace.identity.pages import bp

_PAGE = {"nav_active": "settings", "settings_active": "identity_pages.domains"}


@bp.route("/o/<org>/settings/domains", methods=["GET", "POST"], endpoint="domains")
@login_required
def domains_page(org: str):
    """List the org's domains; POST adds one."""
    access = page_access(org, "org.manage_settings")
    error, entered = None, ""
    if request.method == "POST":
        entered = (request.form.get("domain") or "").strip()[:400]
        try:
            row = service.add_domain(access.org.id, entered, actor_id=access.account.id)
            flash(f"{row.domain} added. Create its TXT record, then verify.", "success")
            return redirect(url_for("identity_pages.domains", org=org))
        except ServiceError as exc:
            db.session.rollback()
            error = exc.message
    return render_template(
        "identity/domains.html",
        **_PAGE,
        error=error,
        entered=entered,
        domain_list=service.list_domains(access.org.id),
    ), (400 if error else 200)


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/verify")
@login_required
def verify_domain(org: str, domain_id: uuid.UUID):
    """Check the TXT record now; the row says verified, or what is still missing."""
    access = page_access(org, "org.manage_settings")
    message, ok = None, False
    try:
        result = service.verify_domain(access.org.id, domain_id, actor_id=access.account.id)
        message, ok = result.message, result.verified
    except ServiceError as exc:
        if exc.status == 404:
            raise
        db.session.rollback()
        message = exc.message
    row = service.get_domain(access.org.id, domain_id)
    if htmx:
        return render_template("identity/_domain_row.html", d=row, message=message, ok=ok)
    flash(message, "success" if ok else "error")
    return redirect(url_for("identity_pages.domains", org=org))


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/remove")
@login_required
def remove_domain(org: str, domain_id: uuid.UUID):
    access = page_access(org, "org.manage_settings")
    row = service.get_domain(access.org.id, domain_id)
    name = row.domain
    service.remove_domain(access.org.id, domain_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash(f"{name} removed.", "success")
    return redirect(url_for("identity_pages.domains", org=org))
