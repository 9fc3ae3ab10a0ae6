"""The Single sign-on settings page: one form (the secret field is always empty;
blank keeps the stored secret), the discovery result after saving, enable/disable and
delete. Group sync has its own page (``workspace.identity.group_sync_pages``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for

from workspace.auth.enforced_sso import enforced_domains
from workspace.auth.guards import page, render
from workspace.errors import NotFoundError, ServiceError
from workspace.identity.sso import connection
from workspace.identity.sso.schemas import SsoConnectionIn, SsoEnabledForm
from workspace.inputs import field_errors
from workspace.security.permissions import Access

bp = Blueprint("sso_pages", __name__)

_ACTION = "org.manage_settings"
_URL = "/o/<org>/settings/sso"


def _page(
    access: Access,
    error: ServiceError | None = None,
    report: connection.DiscoveryReport | None = None,
):
    """The page; after a refusal (``invalid``), what was typed beside its errors."""
    conn = connection.get_connection(access.org.id)
    return render(
        "identity/sso.html",
        nav_active="settings",
        settings_active="sso_pages.sso",
        conn=conn,
        form=request.form if error else None,
        errors=field_errors(error) if error else {},
        report=report,
        default_redirect_uri=connection.default_redirect_uri(),
        backchannel_logout_uri=connection.backchannel_logout_uri(access.org.id),
        post_logout_redirect_uri=connection.post_logout_redirect_uri(),
        domain_verified=connection.domain_is_verified(conn) if conn else False,
        enforced_domains=enforced_domains(access.org.id, "sso") if conn else [],
        status=400 if error else 200,
    )


@bp.get(_URL, endpoint="sso")
@page(action=_ACTION)
def sso_page(access: Access):
    """Read the org's OIDC connection."""
    return _page(access)


@bp.post(_URL, endpoint="save")
@page(action=_ACTION, form=SsoConnectionIn, checkboxes=("enabled", "idp_logout"), invalid=_page)
def save(access: Access, form: SsoConnectionIn):
    """Save the connection and check the issuer's discovery document. The
    connection-level sync settings (docs/sso.md) are not toggles in this UI: the stored
    ones are kept."""
    conn = connection.get_connection(access.org.id)
    data = connection.ConnectionInput(
        **form.model_dump(exclude={"sync_groups_on_login", "remove_stale_synced_memberships"}),
        sync_groups_on_login=conn.sync_groups_on_login if conn else True,
        remove_stale_synced_memberships=conn.remove_stale_synced_memberships if conn else False,
    )
    conn = connection.save_connection(access.org.id, data, actor_id=access.account.id)
    flash("Single sign-on settings saved.", "success")
    return _page(access, report=connection.check_discovery(conn))


def _back(org: str, error: ServiceError | None = None):
    """To the page, with the refusal as a flash; a missing connection is a 404."""
    if isinstance(error, NotFoundError):
        raise error
    if error:
        flash(error.message, "error")
    return redirect(url_for("sso_pages.sso", org=org))


@bp.post(_URL + "/enabled")
@page(action=_ACTION, form=SsoEnabledForm, invalid=_back)
def sso_set_enabled(org: str, access: Access, form: SsoEnabledForm):
    connection.set_enabled(access.org.id, form.enabled, actor_id=access.account.id)
    flash("Single sign-on enabled." if form.enabled else "Single sign-on disabled.", "success")
    return _back(org)


@bp.post(_URL + "/delete")
@page(action=_ACTION)
def sso_delete(org: str, access: Access):
    connection.delete_connection(access.org.id, actor_id=access.account.id)
    flash("Single sign-on connection deleted.", "success")
    return _back(org)
