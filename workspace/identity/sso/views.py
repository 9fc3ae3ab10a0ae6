"""The Single sign-on and Group sync settings pages.

SSO: one form (the secret field is always empty; blank keeps the stored secret),
the discovery result after saving, enable/disable and delete. Group sync: the
mappings table with add/remove, and a dry-run preview that HTMX fills in place.
"""

from __future__ import annotations

import uuid

from flask import flash, redirect, render_template, request, url_for

from workspace.auth.guards import login_required, page_access
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import db, htmx
from workspace.identity.pages import bp
from workspace.identity.sso import connection, groupsync, preview


def _checked(name: str) -> bool:
    return request.form.get(name) in ("1", "on", "true", "yes")


@bp.route("/o/<org>/settings/sso", methods=["GET", "POST"], endpoint="sso")
@login_required
def sso_page(org: str):
    """Read or save the org's OIDC connection."""
    access = page_access(org, "org.manage_settings")
    conn = connection.get_connection(access.org.id)
    error, field, report, form = None, None, None, None
    if request.method == "POST":
        form = request.form
        try:
            conn = connection.save_connection(
                access.org.id,
                connection.ConnectionInput(
                    email_domain=form.get("email_domain", "")[:400],
                    issuer_url=form.get("issuer_url", "")[:500],
                    client_id=form.get("client_id", "")[:500],
                    client_secret=form.get("client_secret", "")[:2000] or None,
                    redirect_uri=form.get("redirect_uri", "")[:500] or None,
                    enabled=_checked("enabled"),
                    # Connection-level settings (spec §2.2), not toggles in this UI: keep them.
                    sync_groups_on_login=conn.sync_groups_on_login if conn else True,
                    groups_claim=form.get("groups_claim", "")[:100] or "groups",
                    remove_stale_synced_memberships=(
                        conn.remove_stale_synced_memberships if conn else False
                    ),
                ),
                actor_id=access.account.id,
            )
            report = connection.check_discovery(conn)
            form = None
            flash("Single sign-on settings saved.", "success")
        except ServiceError as exc:
            db.session.rollback()
            conn = connection.get_connection(access.org.id)
            error, field = exc.message, exc.field
    return render_template(
        "identity/sso.html",
        nav_active="settings",
        settings_active="identity_pages.sso",
        conn=conn,
        form=form,
        error=error,
        error_field=field,
        report=report,
        default_redirect_uri=connection.default_redirect_uri(),
        domain_verified=connection.domain_is_verified(conn) if conn else False,
    ), 400 if error else 200


@bp.post("/o/<org>/settings/sso/enabled")
@login_required
def sso_set_enabled(org: str):
    access = page_access(org, "org.manage_settings")
    enable = _checked("enabled")
    try:
        connection.set_enabled(access.org.id, enable, actor_id=access.account.id)
        flash("Single sign-on enabled." if enable else "Single sign-on disabled.", "success")
    except ServiceError as exc:
        db.session.rollback()
        if exc.status == 404:
            raise
        flash(exc.message, "error")
    return redirect(url_for("identity_pages.sso", org=org))


@bp.post("/o/<org>/settings/sso/delete")
@login_required
def sso_delete(org: str):
    access = page_access(org, "org.manage_settings")
    connection.delete_connection(access.org.id, actor_id=access.account.id)
    flash("Single sign-on connection deleted.", "success")
    return redirect(url_for("identity_pages.sso", org=org))


def _group_sync_context(access) -> dict:
    project_list = projects.list_projects(access.org.id)
    return {
        "nav_active": "settings",
        "settings_active": "identity_pages.group_sync",
        "mappings": groupsync.list_mappings(access.org.id),
        "project_list": project_list,
        "project_names": {p.id: p.name for p in project_list},
        "conn": connection.get_connection(access.org.id),
    }


@bp.route("/o/<org>/settings/group-sync", methods=["GET", "POST"], endpoint="group_sync")
@login_required
def group_sync_page(org: str):
    """List mappings; POST adds one."""
    access = page_access(org, "org.manage_settings")
    error = None
    if request.method == "POST":
        try:
            project_id = uuid.UUID(request.form.get("project_id", ""))
        except ValueError:
            project_id = None
        try:
            if project_id is None:
                raise ServiceError("Choose a project.", field="project_id")
            groupsync.add_mapping(
                access.org.id,
                request.form.get("idp_group", "")[:300],
                project_id,
                request.form.get("role", ""),
                actor_id=access.account.id,
            )
            flash("Mapping added.", "success")
            return redirect(url_for("identity_pages.group_sync", org=org))
        except ServiceError as exc:
            db.session.rollback()
            error = exc.message
    return render_template(
        "identity/group_sync.html", error=error, form=request.form, **_group_sync_context(access)
    ), 400 if error else 200


@bp.post("/o/<org>/settings/group-sync/<uuid:mapping_id>/remove")
@login_required
def group_sync_remove(org: str, mapping_id: uuid.UUID):
    access = page_access(org, "org.manage_settings")
    groupsync.remove_mapping(access.org.id, mapping_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash("Mapping removed.", "success")
    return redirect(url_for("identity_pages.group_sync", org=org))


@bp.post("/o/<org>/settings/group-sync/preview")
@login_required
def group_sync_preview(org: str):
    """Dry run: what a sign-in with these groups would change. Writes nothing."""
    access = page_access(org, "org.manage_settings")
    email = (request.form.get("email") or "").strip()[:320]
    raw_groups = request.form.get("groups", "")[:10000]
    # One group per line: names may hold commas (Active Directory DNs such as
    # CN=Engineering,OU=Groups,DC=acme,DC=com).
    groups = [line.strip() for line in raw_groups.splitlines() if line.strip()]
    result, error = None, None
    try:
        result = preview.preview(access.org.id, email=email, member_id=None, groups=groups)
    except ServiceError as exc:
        error = exc.message
    context = _group_sync_context(access) | {
        "preview": result,
        "preview_error": error,
        "preview_email": email,
        "preview_groups": raw_groups,
    }
    if htmx:
        return render_template("identity/_sync_preview.html", **context)
    return render_template("identity/group_sync.html", error=None, form={}, **context)
