"""The LDAP connection's JSON API (docs/api.md): read, save, delete, test, and the
directory group-sync preview.

Owner or admin only. The bind password is accepted on write and never returned.
"""

from __future__ import annotations

import json
import uuid

from flask import Response, request, url_for

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.identity.ldap import groups, service, sync_job
from workspace.identity.ldap.models import LdapConnection
from workspace.identity.ldap.schemas import (
    DirectoryGroupOut,
    DirectorySyncIn,
    DirectorySyncPreviewIn,
    DirectorySyncPreviewOut,
    LdapConnectionIn,
    LdapConnectionOut,
    LdapTestOut,
    MatchedMappingOut,
    PlannedChangeOut,
)
from workspace.inputs import parse_body
from workspace.jobs.schemas import JobOut
from workspace.security.permissions import Access

bp = api_blueprint("ldap_api", __name__, "/api/v1/orgs/<uuid:org_id>")

_ACTION = "org.manage_settings"


@bp.get("/ldap")
@operation("Read the LDAP connection", tag="ldap", action=_ACTION, response=LdapConnectionOut)
def read_connection(org_id: uuid.UUID, access: Access):
    """The org's directory settings; ``has_bind_password`` instead of the password."""
    return _out(service.get_connection(access.org.id))


def _out(row: LdapConnection) -> LdapConnectionOut:
    out = LdapConnectionOut.model_validate(row)
    return out.model_copy(update={"next_sync_at": sync_job.next_run(row)})


@bp.put("/ldap")
@operation(
    "Save the LDAP connection",
    tag="ldap",
    action=_ACTION,
    body=LdapConnectionIn,
    response=LdapConnectionOut,
)
def save_connection(org_id: uuid.UUID, access: Access, body: LdapConnectionIn):
    """Creates or replaces the connection, group-sync settings included (a field left
    out takes its default). Omit ``bind_password`` (or send it blank) to keep the
    stored one."""
    group_settings = groups.check_group_settings(body.group_settings())
    row = service.save_connection(access.org.id, body.to_input(), actor_id=access.account.id)
    groups.save_group_settings(row, group_settings, actor_id=access.account.id)
    sync_job.save_schedule(row, body.sync_every_minutes, actor_id=access.account.id)
    return _out(row)


@bp.delete("/ldap")
@operation("Delete the LDAP connection", tag="ldap", action=_ACTION, status=204)
def delete_connection(org_id: uuid.UUID, access: Access):
    """Directory sign-in stops at once; accounts and memberships stay."""
    service.delete_connection(access.org.id, actor_id=access.account.id)


@bp.post("/ldap/test")
@operation("Test the LDAP connection", tag="ldap", action=_ACTION, response=LdapTestOut)
def test_connection(org_id: uuid.UUID, access: Access):
    """Service bind plus a sample search of up to five entries. With no body it tests
    the saved settings; a body shaped like the PUT tests those settings unsaved (a
    blank password uses the stored one). A failure is ``ok: false`` with a message."""
    edits = parse_body(LdapConnectionIn).to_input() if request.get_data() else None
    result = service.test_connection(access.org.id, edits)
    return LdapTestOut(ok=result.ok, message=result.message, sample_count=result.sample_count)


@bp.post("/ldap/sync")
@operation(
    "Start a directory sync of every linked member, or its dry run: 202 with the job",
    tag="ldap",
    action=_ACTION,
    body=DirectorySyncIn,
    response=JobOut,
    status=202,
    errors=(400, 401, 403, 404, 409),
)
def start_sync(org_id: uuid.UUID, access: Access, body: DirectorySyncIn):
    """What the schedule runs (docs/ldap.md#scheduled-sync), now. ``GET`` the Location
    until ``state`` is ``done``; its ``result`` lists who is (``dry_run``: would be)
    deactivated and why, the project roles added, changed and removed, and the counts.
    409 while a sync for this org is queued or running."""
    job = sync_job.start(access.org.id, access.account.id, dry_run=body.dry_run)
    location = url_for("job_status_api.read_job", org_id=org_id, job_id=job.id)
    body_out = JobOut.of(job).model_dump(mode="json")
    return Response(json.dumps(body_out), status=202, mimetype="application/json",
                    headers={"Location": location})  # fmt: skip


@bp.post("/ldap/sync-preview")
@operation(
    "Dry-run directory group sync for a username (writes nothing)",
    tag="ldap",
    action=_ACTION,
    body=DirectorySyncPreviewIn,
    response=DirectorySyncPreviewOut,
    errors=(400, 401, 403, 404, 502),
)
def sync_preview(org_id: uuid.UUID, access: Access, body: DirectorySyncPreviewIn):
    """Finds the person with the service account and the search filter, reads their
    groups as a sign-in would, and answers the groups found, the mappings they match
    and the planned adds, changes and removes. ``ok: false`` with ``message`` when the
    groups could not be read (a sign-in would skip the sync); 502 when the directory
    cannot be searched at all."""
    return preview_out(groups.preview(access.org.id, body.username))


def preview_out(result: groups.DirectoryPreview) -> DirectorySyncPreviewOut:
    plan = result.plan
    return DirectorySyncPreviewOut(
        username=result.username,
        dn=result.dn,
        email=result.email,
        group_membership=result.found.mode,
        ok=result.found.error is None,
        message=result.found.error,
        groups=[DirectoryGroupOut(dn=g.dn, cn=g.cn) for g in result.found.groups],
        matched_mappings=[MatchedMappingOut.model_validate(m) for m in result.matched],
        remove_stale_synced_memberships=result.remove_stale,
        **{
            kind: [
                PlannedChangeOut(project_id=c.project_id, role=c.role, from_role=c.from_role)
                for c in (getattr(plan, kind) if plan else [])
            ]
            for kind in ("adds", "changes", "removes")
        },
    )
