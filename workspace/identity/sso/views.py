"""The Single sign-on and Group sync settings pages.

SSO: one form (the secret field is always empty; blank keeps the stored secret),
the discovery result after saving, enable/disable and delete. Group sync: the
mappings table with add/remove, and a dry-run preview that HTMX fills in place.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from workspace.auth.guards import page
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity import groupsync
from workspace.identity.sso import connection, preview
from workspace.identity.sso.schemas import GroupMappingIn, SsoConnectionIn, SyncPreviewIn
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


def _group_sync_context(access: Access) -> dict:
    project_list = projects.list_projects(access.org.id)
    return {
        "nav_active": "settings",
        "settings_active": "sso_pages.group_sync",
        "mappings": groupsync.list_mappings(access.org.id),
        "project_list": project_list,
        "project_names": {p.id: p.name for p in project_list},
        "conn": connection.get_connection(access.org.id),
    }


@bp.route("/o/<org>/settings/group-sync", methods=["GET", "POST"], endpoint="group_sync")
@page(action=_ACTION)
def group_sync_page(org: str, access: Access):
    """List mappings; POST adds one."""
    errors: dict[str, str] = {}
    if request.method == "POST":
        try:
            form = parse_form(GroupMappingIn)
            groupsync.add_mapping(
                access.org.id,
                form.idp_group,
                form.project_id,
                form.role,
                actor_id=access.account.id,
            )
        except ServiceError as exc:
            discard_pending("a refused save keeps nothing it half wrote")
            errors = field_errors(exc)
        else:
            flash("Mapping added.", "success")
            return redirect(url_for("sso_pages.group_sync", org=org))
    return render_template(
        "identity/group_sync.html", errors=errors, form=request.form, **_group_sync_context(access)
    ), 400 if errors else 200


@bp.post("/o/<org>/settings/group-sync/<uuid:mapping_id>/remove")
@page(action=_ACTION)
def group_sync_remove(org: str, mapping_id: uuid.UUID, access: Access):
    groupsync.remove_mapping(access.org.id, mapping_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash("Mapping removed.", "success")
    return redirect(url_for("sso_pages.group_sync", org=org))


@bp.post("/o/<org>/settings/group-sync/preview")
@page(action=_ACTION)
def group_sync_preview(org: str, access: Access):
    """Dry run: what a sign-in with these groups would change. Writes nothing."""
    email = request.form.get("email", "").strip()
    raw_groups = request.form.get("groups", "")
    # One group per line: names may hold commas (Active Directory DNs such as
    # CN=Engineering,OU=Groups,DC=acme,DC=com).
    groups = [line.strip() for line in raw_groups.splitlines() if line.strip()]
    result, error, skipped = None, None, None
    try:
        fields = MultiDict([("email", email)] + [("groups", g) for g in groups])
        form = parse_form(SyncPreviewIn, fields)
        if request.form.get("no_claim"):
            skipped = preview.absent_claim(access.org.id, email=form.email, member_id=None)
        else:
            result = preview.preview(
                access.org.id, email=form.email, member_id=None, groups=form.groups or []
            )
    except ServiceError as exc:
        error = " ".join(field_errors(exc).values())
    context = _group_sync_context(access) | {
        "preview": result,
        "preview_skipped": skipped,
        "preview_no_claim": bool(request.form.get("no_claim")),
        "preview_error": error,
        "preview_email": email,
        "preview_groups": raw_groups,
    }
    if htmx:
        # HTMX swaps only 2xx answers; the fragment carries the error itself.
        return render_template("identity/_sync_preview.html", **context)
    return render_template("identity/group_sync.html", errors={}, form={}, **context), (
        400 if error else 200
    )
