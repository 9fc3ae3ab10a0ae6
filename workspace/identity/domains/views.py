"""The Domains settings page: add a domain, see the TXT record to create, verify it,
remove it. Verify and remove update one row through HTMX; without JavaScript the
forms post and come back to the page."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.domains import service
from workspace.identity.domains.schemas import DomainCreate
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access
from workspace.transaction import discard_pending

bp = Blueprint("domains_pages", __name__)

_PAGE = {"nav_active": "settings", "settings_active": "domains_pages.domains"}


@bp.route("/o/<org>/settings/domains", methods=["GET", "POST"], endpoint="domains")
@page(action="org.manage_settings")
def domains_page(org: str, access: Access):
    """List the org's domains; POST adds one."""
    errors: dict[str, str] = {}
    if request.method == "POST":
        try:
            form = parse_form(DomainCreate)
            row = service.add_domain(access.org.id, form.domain, actor_id=access.account.id)
        except ServiceError as exc:
            discard_pending("a refused save keeps nothing it half wrote")
            errors = field_errors(exc)
        else:
            flash(f"{row.domain} added. Create its TXT record, then verify.", "success")
            return redirect(url_for("domains_pages.domains", org=org))
    return render_template(
        "identity/domains.html",
        **_PAGE,
        errors=errors,
        entered=request.form.get("domain", "").strip(),
        domain_list=service.list_domains(access.org.id),
    ), (400 if errors else 200)


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/verify")
@page(action="org.manage_settings")
def verify_domain(org: str, domain_id: uuid.UUID, access: Access):
    """Check the TXT record now; the row says verified, or what is still missing."""
    message, ok = None, False
    try:
        result = service.verify_domain(access.org.id, domain_id, actor_id=access.account.id)
        message, ok = result.message, result.verified
    except ServiceError as exc:
        if exc.status == 404:
            raise
        discard_pending("a refused save keeps nothing it half wrote")
        message = exc.message
    row = service.get_domain(access.org.id, domain_id)
    if htmx:
        return render_template("identity/_domain_row.html", d=row, message=message, ok=ok)
    flash(message, "success" if ok else "error")
    return redirect(url_for("domains_pages.domains", org=org))


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/remove")
@page(action="org.manage_settings")
def remove_domain(org: str, domain_id: uuid.UUID, access: Access):
    name = service.get_domain(access.org.id, domain_id).domain
    service.remove_domain(access.org.id, domain_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash(f"{name} removed.", "success")
    return redirect(url_for("domains_pages.domains", org=org))
