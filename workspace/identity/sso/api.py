"""SSO routes of the JSON API: the connection, group mappings, the sync preview."""

from __future__ import annotations

import uuid
from dataclasses import asdict

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.identity.groupsync import service as groupsync
from workspace.identity.sso import connection, preview
from workspace.identity.sso.models import SsoConnection
from workspace.identity.sso.schemas import (
    DiscoveryOut,
    GroupMappingIn,
    GroupMappingOut,
    OrgRoleChangeOut,
    RoleChangeOut,
    SsoConnectionIn,
    SsoConnectionOut,
    SsoSaveOut,
    SyncPreviewIn,
    SyncPreviewOut,
)
from workspace.security.permissions import Access

bp = api_blueprint("sso_api", __name__, "/api/v1/orgs/<uuid:org_id>")


def connection_out(conn: SsoConnection) -> SsoConnectionOut:
    return SsoConnectionOut(
        email_domain=conn.email_domain,
        issuer_url=conn.issuer_url,
        client_id=conn.client_id,
        redirect_uri=conn.redirect_uri,
        enabled=conn.enabled,
        sync_groups_on_login=conn.sync_groups_on_login,
        groups_claim=conn.groups_claim,
        remove_stale_synced_memberships=conn.remove_stale_synced_memberships,
        extra_scopes=conn.extra_scopes,
        idp_logout=conn.idp_logout,
        backchannel_logout_uri=connection.backchannel_logout_uri(conn.org_id),
        post_logout_redirect_uri=connection.post_logout_redirect_uri(),
        has_client_secret=bool(conn.client_secret_sealed),
        domain_verified=connection.domain_is_verified(conn),
    )


def discovery_out(report: connection.DiscoveryReport) -> DiscoveryOut:
    meta = report.metadata
    return DiscoveryOut(
        ok=report.ok,
        message=report.message,
        **(
            {
                k: getattr(meta, k)
                for k in (
                    "issuer",
                    "authorization_endpoint",
                    "token_endpoint",
                    "userinfo_endpoint",
                    "jwks_uri",
                )
            }
            if meta
            else {}
        ),
    )


@bp.get("/sso")
@operation(
    "Read the SSO connection (never the client secret)",
    tag="sso",
    action="org.manage_settings",
    response=SsoConnectionOut,
)
def read_sso(org_id: uuid.UUID, access: Access):
    return connection_out(connection.require_connection(access.org.id))


@bp.put("/sso")
@operation(
    "Save the SSO connection and check the issuer's discovery",
    tag="sso",
    action="org.manage_settings",
    body=SsoConnectionIn,
    response=SsoSaveOut,
    errors=(400, 401, 403, 404, 409),
)
def save_sso(org_id: uuid.UUID, access: Access, body: SsoConnectionIn):
    """``client_secret`` is write-only; empty or absent keeps the stored one. Enabling
    needs the email domain verified by this org. The answer includes what discovery
    found at the issuer, or why it failed (the connection is saved either way)."""
    conn = connection.save_connection(
        access.org.id, connection.ConnectionInput(**body.model_dump()), actor_id=access.account.id
    )
    report = connection.check_discovery(conn)
    return SsoSaveOut(**connection_out(conn).model_dump(), discovery=discovery_out(report))


@bp.delete("/sso")
@operation("Delete the SSO connection", tag="sso", action="org.manage_settings", status=204)
def delete_sso(org_id: uuid.UUID, access: Access):
    connection.delete_connection(access.org.id, actor_id=access.account.id)


@bp.get("/sso/group-mappings")
@operation(
    "List IdP group mappings",
    tag="sso",
    action="org.manage_settings",
    response=list[GroupMappingOut],
)
def list_mappings(org_id: uuid.UUID, access: Access):
    return [GroupMappingOut.model_validate(m) for m in groupsync.list_mappings(access.org.id)]


@bp.post("/sso/group-mappings")
@operation(
    "Map an IdP group to a project role or the org's admin role",
    tag="sso",
    action="org.manage_settings",
    body=GroupMappingIn,
    response=GroupMappingOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def add_mapping(org_id: uuid.UUID, access: Access, body: GroupMappingIn):
    mapping = groupsync.add_mapping(
        access.org.id,
        body.idp_group,
        body.project_id,
        body.role,
        actor_id=access.account.id,
        target=body.target,
    )
    return GroupMappingOut.model_validate(mapping)


@bp.delete("/sso/group-mappings/<uuid:mapping_id>")
@operation("Remove an IdP group mapping", tag="sso", action="org.manage_settings", status=204)
def remove_mapping(org_id: uuid.UUID, mapping_id: uuid.UUID, access: Access):
    groupsync.remove_mapping(access.org.id, mapping_id, actor_id=access.account.id)


@bp.post("/sso/sync-preview")
@operation(
    "Dry-run group sync for a person and a group set (writes nothing)",
    tag="sso",
    action="org.manage_settings",
    body=SyncPreviewIn,
    response=SyncPreviewOut,
)
def sync_preview(org_id: uuid.UUID, access: Access, body: SyncPreviewIn):
    """``groups: null`` previews a sign-in whose provider sent no groups claim."""
    if body.groups is None:
        skipped = preview.absent_claim(access.org.id, email=body.email, member_id=body.member_id)
        return SyncPreviewOut(adds=[], changes=[], removes=[], skipped=skipped)
    result = preview.preview(
        access.org.id, email=body.email, member_id=body.member_id, groups=body.groups
    )
    return SyncPreviewOut(
        **{
            k: [RoleChangeOut(**asdict(c)) for c in getattr(result, k)]
            for k in ("adds", "changes", "removes")
        },
        org_role=OrgRoleChangeOut(**asdict(result.org_role)) if result.org_role else None,
    )
