"""The Domains settings page: add a domain, see the TXT record to create, verify it,
remove it. Verify and remove update one row through HTMX (verify answers with the
page's ``domain_row`` block); without JavaScript the forms post and come back to the
page."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, request, url_for

from workspace.auth.guards import page, render
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.domains import service
from workspace.identity.domains.schemas import DomainCreate
from workspace.inputs import field_errors
from workspace.security.permissions import Access

bp = Blueprint("domains_pages", __name__)

_ACTION = "org.manage_settings"
_PAGE = {"nav_active": "settings", "settings_active": "domains_pages.domains"}


def _page(access: Access, error: ServiceError | None = None):
    """The list and the add form; after a refusal (``invalid``), what was typed beside
    its error."""
    return render(
        "identity/domains.html",
        **_PAGE,
        errors=field_errors(error) if error else {},
        typed=request.form,
        domain_list=service.list_domains(access.org.id),
        status=400 if error else 200,
    )


def _back(org: str):
    return redirect(url_for("domains_pages.domains", org=org))


@bp.get("/o/<org>/settings/domains", endpoint="domains")
@page(action=_ACTION)
def domains_page(access: Access):
    """List the org's domains."""
    return _page(access)


@bp.post("/o/<org>/settings/domains", endpoint="add_domain")
@page(action=_ACTION, form=DomainCreate, invalid=_page)
def add_domain(org: str, access: Access, form: DomainCreate):
    row = service.add_domain(access.org.id, form.domain, actor_id=access.account.id)
    flash(f"{row.domain} added. Create its TXT record, then verify.", "success")
    return _back(org)


def _verified(org: str, domain_id: uuid.UUID, access: Access, message: str, ok: bool):
    """The row with what the check found (HTMX), else the page with it as a flash."""
    if htmx:
        return render(
            "identity/domains.html",
            d=service.get_domain(access.org.id, domain_id),
            message=message,
            ok=ok,
        )
    flash(message, "success" if ok else "error")
    return _back(org)


def _not_verified(org: str, domain_id: uuid.UUID, access: Access, error: ServiceError):
    return _verified(org, domain_id, access, error.message, ok=False)


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/verify")
@page(action=_ACTION, invalid=_not_verified, block="domain_row")
def verify_domain(org: str, domain_id: uuid.UUID, access: Access):
    """Check the TXT record now; the row says verified, or what is still missing."""
    result = service.verify_domain(access.org.id, domain_id, actor_id=access.account.id)
    return _verified(org, domain_id, access, result.message, result.verified)


@bp.post("/o/<org>/settings/domains/<uuid:domain_id>/remove")
@page(action=_ACTION)
def remove_domain(org: str, domain_id: uuid.UUID, access: Access):
    name = service.get_domain(access.org.id, domain_id).domain
    service.remove_domain(access.org.id, domain_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash(f"{name} removed.", "success")
    return _back(org)
