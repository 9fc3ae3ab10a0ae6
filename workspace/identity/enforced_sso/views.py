"""The Enforced SSO settings page (docs/sso.md#enforced-sso): each verified domain
with its state, a preview step that lists who loses password sign-in and asks for a
confirmation, turning it off, and naming break-glass owners. Admins see the page;
only owners change anything (``org.enforce_sso``)."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, url_for

from workspace.auth.guards import page, render
from workspace.core.models.enforced_sso import break_glass_owners
from workspace.errors import NotFoundError, ServiceError
from workspace.identity.domains.service import get_domain
from workspace.identity.enforced_sso import service
from workspace.identity.enforced_sso.schemas import (
    BreakGlassForm,
    EnforcementForm,
    EnforcementPreviewQuery,
)
from workspace.security.permissions import Access

bp = Blueprint("enforced_sso_pages", __name__)

_URL = "/o/<org>/settings/enforced-sso"
_ENFORCE = "org.enforce_sso"
_PAGE = {"nav_active": "settings", "settings_active": "enforced_sso_pages.enforced_sso"}


def _page(access: Access, *, shown: service.Preview | None = None, domain=None, error=None):
    return render(
        "identity/enforced_sso.html",
        **_PAGE,
        statuses=service.overview(access.org.id),
        glass={b.member_id: b for b in break_glass_owners(access.org.id)},
        owners=service.owners(access.org.id),
        shown=shown,
        preview_domain=domain,
        error=error,
        status=error.status if error else 200,
    )


def _back(org: str, error: ServiceError | None = None):
    if isinstance(error, NotFoundError):
        raise error
    if error:
        flash(error.message, "error")
    return redirect(url_for("enforced_sso_pages.enforced_sso", org=org))


@bp.get(_URL, endpoint="enforced_sso")
@page(action="org.manage_settings")
def enforced_sso_page(access: Access):
    """Which verified domains require SSO, and who keeps a password."""
    return _page(access)


def _not_previewed(org: str, domain_id: uuid.UUID, access: Access, error: ServiceError):
    if isinstance(error, NotFoundError):
        raise error
    return _page(access, error=error)


@bp.get(_URL + "/<uuid:domain_id>/preview", endpoint="preview")
@page(action=_ENFORCE, form=EnforcementPreviewQuery, invalid=_not_previewed)
def preview_page(org: str, domain_id: uuid.UUID, access: Access, form: EnforcementPreviewQuery):
    """The confirm step: who would be locked out of password sign-in."""
    shown = service.preview(access.org.id, domain_id, form.source)
    return _page(access, shown=shown, domain=get_domain(access.org.id, domain_id))


def _not_enforced(org: str, domain_id: uuid.UUID, access: Access, error: ServiceError):
    if isinstance(error, NotFoundError):
        raise error
    try:
        shown = service.preview(access.org.id, domain_id, None)
    except ServiceError:
        shown = None
    domain = get_domain(access.org.id, domain_id) if shown else None
    return _page(access, shown=shown, domain=domain, error=error)


@bp.post(_URL + "/<uuid:domain_id>/enforce", endpoint="enforce")
@page(action=_ENFORCE, form=EnforcementForm, checkboxes=("confirm",), invalid=_not_enforced)
def enforce(org: str, domain_id: uuid.UUID, access: Access, form: EnforcementForm):
    _, shown = service.enforce(access, domain_id, form.source, confirm=form.confirm)
    flash(f"Single sign-on is now required for {shown.domain}.", "success")
    return _back(org)


@bp.post(_URL + "/<uuid:domain_id>/stop", endpoint="stop")
@page(action=_ENFORCE, invalid=_back)
def stop(org: str, domain_id: uuid.UUID, access: Access):
    name = get_domain(access.org.id, domain_id).domain
    if service.stop(access, domain_id):
        flash(f"Password sign-in works again for {name}.", "success")
    return _back(org)


@bp.post(_URL + "/break-glass/<uuid:member_id>", endpoint="break_glass")
@page(action=_ENFORCE, form=BreakGlassForm, checkboxes=("keep",), invalid=_back)
def break_glass(org: str, member_id: uuid.UUID, access: Access, form: BreakGlassForm):
    service.set_break_glass(access, member_id, form.keep)
    flash("Break-glass owners saved.", "success")
    return _back(org)
