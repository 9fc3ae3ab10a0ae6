"""The Group sync settings page: the mappings table with add and remove, a dry-run
preview of an SSO sign-in's groups, one of a directory user's groups and one of a
person's SCIM groups, each of which HTMX fills in place (the page's ``sso_result``,
``directory_result`` and ``scim_result`` blocks).
Forms post back and work without JavaScript."""

from __future__ import annotations

import json
import uuid
from typing import Any

from flask import Blueprint, flash, redirect, request, url_for

from workspace.auth.guards import page, render
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.group_sync_pages.schemas import GroupMappingForm, ScimSyncPreviewIn
from workspace.identity.groupsync import held as groupsync_held
from workspace.identity.groupsync import preview as groupsync_preview
from workspace.identity.groupsync import service as groupsync
from workspace.identity.ldap import groups as directory_groups
from workspace.identity.ldap.models import connection_for
from workspace.identity.ldap.schemas import DirectorySyncPreviewIn
from workspace.identity.sso import connection, preview
from workspace.identity.sso.schemas import SyncPreviewForm
from workspace.inputs import field_errors
from workspace.security.permissions import Access

bp = Blueprint("group_sync_pages", __name__)

_ACTION = "org.manage_settings"
_URL = "/o/<org>/settings/group-sync"


def _page(
    access: Access,
    error: ServiceError | None = None,
    status: int = 200,
    results: dict[str, Any] | None = None,
):
    """The page, or for HTMX the route's block; the forms keep what was typed, and
    after a refused mapping (``invalid``) its errors stand beside their fields."""
    project_list = projects.list_projects(access.org.id)
    return render(
        "identity/group_sync.html",
        nav_active="settings",
        settings_active="group_sync_pages.group_sync",
        mappings=(mappings := groupsync.list_mappings(access.org.id)),
        reach=groupsync_held.reach(access.org.id, {m.idp_group for m in mappings}),
        project_list=project_list,
        project_names={p.id: p.name for p in project_list},
        conn=connection.get_connection(access.org.id),
        ldap_conn=connection_for(access.org.id),
        scim_groups=groupsync_preview.scim_group_names(access.org.id),
        form=request.form,
        errors=field_errors(error) if error else {},
        status=400 if error else status,
        **(results or {}),
    )


def _back(org: str):
    return redirect(url_for("group_sync_pages.group_sync", org=org))


@bp.get(_URL, endpoint="group_sync")
@page(action=_ACTION)
def group_sync_page(access: Access):
    """List mappings."""
    return _page(access)


@bp.post(_URL, endpoint="add")
@page(action=_ACTION, form=GroupMappingForm, invalid=_page)
def add_mapping(org: str, access: Access, form: GroupMappingForm):
    groupsync.add_mapping(
        access.org.id,
        form.idp_group,
        form.project_id,
        form.role,
        actor_id=access.account.id,
        target=form.target,
    )
    flash("Mapping added.", "success")
    return _back(org)


@bp.post(_URL + "/<uuid:mapping_id>/remove", endpoint="remove")
@page(action=_ACTION)
def group_sync_remove(org: str, mapping_id: uuid.UUID, access: Access):
    groupsync.remove_mapping(access.org.id, mapping_id, actor_id=access.account.id)
    if htmx:  # the row goes; the flash a reload would show is said in its place
        trigger = {"ws-flash": {"message": "Mapping removed.", "category": "success"}}
        return "", 200, {"HX-Trigger": json.dumps(trigger)}
    flash("Mapping removed.", "success")
    return _back(org)


def _preview(access: Access, status: int = 200, **results: Any):
    """HTMX swaps only 2xx answers, so the block carries its error itself; without
    JavaScript the whole page, the result under its form."""
    return _page(access, status=200 if htmx else status, results=results)


def _refused(result: str):
    """The ``invalid`` answer of a preview: its error where ``result`` would stand."""

    def invalid(access: Access, error: ServiceError):
        return _preview(access, error.status, **{result: " ".join(field_errors(error).values())})

    return invalid


@bp.post(_URL + "/preview", endpoint="preview")
@page(action=_ACTION, form=SyncPreviewForm, invalid=_refused("preview_error"), block="sso_result")
def sso_preview(access: Access, form: SyncPreviewForm):
    """Dry run: what an SSO sign-in with these groups (or with no groups claim at all)
    would change. Writes nothing."""
    org_id = access.org.id
    if form.no_claim:
        return _preview(
            access, preview_skipped=preview.absent_claim(org_id, email=form.email, member_id=None)
        )
    plan = preview.preview(org_id, email=form.email, member_id=None, groups=form.groups or [])
    return _preview(access, preview=plan)


@bp.post(_URL + "/directory-preview", endpoint="directory_preview")
@page(
    action=_ACTION,
    form=DirectorySyncPreviewIn,
    invalid=_refused("directory_error"),
    block="directory_result",
)
def directory_preview(access: Access, form: DirectorySyncPreviewIn):
    """Dry run for a directory username: the groups found, the mappings they match and
    what a sign-in would change. Writes nothing."""
    result = directory_groups.preview(access.org.id, form.username)
    return _preview(access, directory_preview=result)


@bp.post(_URL + "/scim-preview", endpoint="scim_preview")
@page(
    action=_ACTION,
    form=ScimSyncPreviewIn,
    invalid=_refused("scim_error"),
    block="scim_result",
)
def scim_preview(access: Access, form: ScimSyncPreviewIn):
    """Dry run for a person and a SCIM group: their groups from every source, the
    mappings matched and what a SCIM change would do. Writes nothing."""
    result = groupsync_preview.scim_preview(access.org.id, form.scim_email, form.scim_group)
    return _preview(access, scim_preview=result)
