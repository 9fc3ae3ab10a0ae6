"""The Single sign-on settings page: one form (the secret field is always empty;
blank keeps the stored secret), the discovery result after saving, enable/disable and
delete. Group sync has its own page (``workspace.identity.group_sync_pages``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.errors import ServiceError
from workspace.identity.sso import connection
from workspace.identity.sso.schemas import SsoConnectionIn
from workspace.inputs import field_errors, parse_form, with_checkboxes
from workspace.security.permissions import Access
from workspace.transaction import discard_pending

bp = Blueprint("sso_pages", __name__)

_ACTION = "org.manage_settings"


def _checked(name: str) -> bool:
    return request.form.get(name) in ("1", "on", "true", "yes")


def _connection_input(access: Access) -> connection.ConnectionInput:
    """The posted form through the API's input model. The connection-level sync
    settings (docs/sso.md) are not toggles in this UI: the stored ones are kept."""
    form = parse_form(SsoConnectionIn, with_checkboxes(request.form, "enabled"))
    conn = connection.get_connection(access.org.id)
    return connection.ConnectionInput(
        **form.model_dump(exclude={"sync_groups_on_login", "remove_stale_synced_memberships"}),
        sync_groups_on_login=conn.sync_groups_on_login if conn else True,
        remove_stale_synced_memberships=conn.remove_stale_synced_memberships if conn else False,
    )


@bp.route("/o/<org>/settings/sso", methods=["GET", "POST"], endpoint="sso")
@page(action=_ACTION)
def sso_page(org: str, access: Access):
    """Read or save the org's OIDC connection."""
    errors: dict[str, str] = {}
    report, form = None, None
    if request.method == "POST":
        try:
            conn = connection.save_connection(
                access.org.id, _connection_input(access), actor_id=access.account.id
            )
        except ServiceError as exc:
            discard_pending("a refused save keeps nothing it half wrote")
            errors, form = field_errors(exc), request.form
        else:
            report = connection.check_discovery(conn)
            flash("Single sign-on settings saved.", "success")
    conn = connection.get_connection(access.org.id)
    return render_template(
        "identity/sso.html",
        nav_active="settings",
        settings_active="sso_pages.sso",
        conn=conn,
        form=form,
        errors=errors,
        report=report,
        default_redirect_uri=connection.default_redirect_uri(),
        domain_verified=connection.domain_is_verified(conn) if conn else False,
    ), 400 if errors else 200


@bp.post("/o/<org>/settings/sso/enabled")
@page(action=_ACTION)
def sso_set_enabled(org: str, access: Access):
    enable = _checked("enabled")
    try:
        connection.set_enabled(access.org.id, enable, actor_id=access.account.id)
        flash("Single sign-on enabled." if enable else "Single sign-on disabled.", "success")
    except ServiceError as exc:
        if exc.status == 404:
            raise
        flash(exc.message, "error")
    return redirect(url_for("sso_pages.sso", org=org))


@bp.post("/o/<org>/settings/sso/delete")
@page(action=_ACTION)
def sso_delete(org: str, access: Access):
    connection.delete_connection(access.org.id, actor_id=access.account.id)
    flash("Single sign-on connection deleted.", "success")
    return redirect(url_for("sso_pages.sso", org=org))
