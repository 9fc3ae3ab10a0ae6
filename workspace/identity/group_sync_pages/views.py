"""The Group sync settings page: the mappings table with add and remove, a dry-run
preview of an SSO sign-in's groups, and one of a directory user's groups, each of
which HTMX fills in place. Forms post back and work without JavaScript."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from workspace.auth.guards import page
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.groupsync import service as groupsync
from workspace.identity.ldap import groups as directory_groups
from workspace.identity.ldap.models import connection_for
from workspace.identity.ldap.schemas import DirectorySyncPreviewIn
from workspace.identity.sso import connection, preview
from workspace.identity.sso.schemas import GroupMappingIn, SyncPreviewIn
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access
from workspace.transaction import discard_pending

bp = Blueprint("group_sync_pages", __name__)

_ACTION = "org.manage_settings"


def _context(access: Access) -> dict:
    project_list = projects.list_projects(access.org.id)
    return {
        "nav_active": "settings",
        "settings_active": "group_sync_pages.group_sync",
        "mappings": groupsync.list_mappings(access.org.id),
        "project_list": project_list,
        "project_names": {p.id: p.name for p in project_list},
        "conn": connection.get_connection(access.org.id),
        "ldap_conn": connection_for(access.org.id),
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
            return redirect(url_for("group_sync_pages.group_sync", org=org))
    return render_template(
        "identity/group_sync.html", errors=errors, form=request.form, **_context(access)
    ), 400 if errors else 200


@bp.post("/o/<org>/settings/group-sync/<uuid:mapping_id>/remove", endpoint="remove")
@page(action=_ACTION)
def group_sync_remove(org: str, mapping_id: uuid.UUID, access: Access):
    groupsync.remove_mapping(access.org.id, mapping_id, actor_id=access.account.id)
    if htmx:
        return ""
    flash("Mapping removed.", "success")
    return redirect(url_for("group_sync_pages.group_sync", org=org))


def _answer(access: Access, preview_context: dict, status: int):
    """HTMX swaps only 2xx answers, so the fragment carries its error itself; without
    JavaScript the whole page, the result under its form."""
    if htmx:
        project_names = {p.id: p.name for p in projects.list_projects(access.org.id)}
        return render_template(
            "identity/_sync_preview.html", project_names=project_names, **preview_context
        )
    context = _context(access) | preview_context
    return render_template("identity/group_sync.html", errors={}, form={}, **context), status


@bp.post("/o/<org>/settings/group-sync/preview", endpoint="preview")
@page(action=_ACTION)
def sso_preview(org: str, access: Access):
    """Dry run: what an SSO sign-in with these groups (or with no groups claim at all)
    would change. Writes nothing."""
    email = request.form.get("email", "").strip()
    raw_groups = request.form.get("groups", "")
    # One group per line: names may hold commas (Active Directory DNs such as
    # CN=Engineering,OU=Groups,DC=acme,DC=com).
    groups = [line.strip() for line in raw_groups.splitlines() if line.strip()]
    no_claim = bool(request.form.get("no_claim"))
    result, error, skipped = None, None, None
    try:
        fields = MultiDict([("email", email)] + [("groups", g) for g in groups])
        form = parse_form(SyncPreviewIn, fields)
        if no_claim:
            skipped = preview.absent_claim(access.org.id, email=form.email, member_id=None)
        else:
            result = preview.preview(
                access.org.id, email=form.email, member_id=None, groups=form.groups or []
            )
    except ServiceError as exc:
        error = " ".join(field_errors(exc).values())
    return _answer(
        access,
        {
            "preview": result,
            "preview_skipped": skipped,
            "preview_no_claim": no_claim,
            "preview_error": error,
            "preview_email": email,
            "preview_groups": raw_groups,
        },
        400 if error else 200,
    )


@bp.post("/o/<org>/settings/group-sync/directory-preview", endpoint="directory_preview")
@page(action=_ACTION)
def directory_preview(org: str, access: Access):
    """Dry run for a directory username: the groups found, the mappings they match and
    what a sign-in would change. Writes nothing."""
    username = request.form.get("username", "").strip()
    result, error, status = None, None, 200
    try:
        form = parse_form(DirectorySyncPreviewIn)
        result = directory_groups.preview(access.org.id, form.username)
    except ServiceError as exc:
        error, status = " ".join(field_errors(exc).values()), exc.status
    return _answer(
        access,
        {
            "preview_part": "directory",
            "directory_preview": result,
            "directory_error": error,
            "preview_username": username,
        },
        status,
    )
