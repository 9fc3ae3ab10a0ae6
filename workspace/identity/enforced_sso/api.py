"""Enforced-SSO routes of the JSON API (docs/sso.md#enforced-sso): the state, the
preview, turning it on (with ``confirm``) and off, and break-glass owners."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core.models.enforced_sso import break_glass_owners
from workspace.identity.enforced_sso import service
from workspace.identity.enforced_sso.schemas import (
    BreakGlassOut,
    DomainEnforcementOut,
    EnforcedSsoOut,
    EnforcementIn,
    EnforcementPreviewOut,
    EnforcementPreviewQuery,
    PersonOut,
)
from workspace.security.permissions import Access

bp = api_blueprint("enforced_sso_api", __name__, "/api/v1/orgs/<uuid:org_id>")

_ENFORCE = "org.enforce_sso"


def preview_out(shown: service.Preview) -> EnforcementPreviewOut:
    def people(rows: list[service.Person]) -> list[PersonOut]:
        return [PersonOut.model_validate(p) for p in rows]

    return EnforcementPreviewOut(
        domain=shown.domain,
        source=shown.source,
        locked_out=people(shown.locked_out),
        pending_invitations=people(shown.pending_invitations),
        kept=people(shown.kept),
    )


def state_out(org_id: uuid.UUID) -> EnforcedSsoOut:
    return EnforcedSsoOut(
        domains=[
            DomainEnforcementOut(
                domain_id=s.domain.id,
                domain=s.domain.domain,
                enforced=s.enforcement is not None,
                source=s.enforcement.source if s.enforcement else None,
                enforced_at=s.enforcement.created_at if s.enforcement else None,
                available_sources=s.sources,
            )
            for s in service.overview(org_id)
        ],
        break_glass=[
            BreakGlassOut(
                member_id=b.member_id,
                email=b.member.account.email,
                effective=b.effective,
                last_used_at=b.last_used_at,
            )
            for b in break_glass_owners(org_id)
        ],
    )


@bp.get("/enforced-sso")
@operation(
    "Read which verified domains require SSO, and the break-glass owners",
    tag="sso",
    action="org.manage_settings",
    response=EnforcedSsoOut,
)
def read_enforced_sso(org_id: uuid.UUID, access: Access):
    return state_out(access.org.id)


@bp.get("/domains/<uuid:domain_id>/enforced-sso/preview")
@operation(
    "Preview who would lose password sign-in if SSO were required on the domain",
    tag="sso",
    action=_ENFORCE,
    query=EnforcementPreviewQuery,
    response=EnforcementPreviewOut,
)
def preview_enforced_sso(
    org_id: uuid.UUID, domain_id: uuid.UUID, access: Access, query: EnforcementPreviewQuery
):
    """Nothing is written. ``locked_out``: members on the domain with a password and no
    link to the source; ``pending_invitations``: sign-in links that would stop working;
    ``kept``: break-glass owners on the domain."""
    return preview_out(service.preview(access.org.id, domain_id, query.source))


@bp.put("/domains/<uuid:domain_id>/enforced-sso")
@operation(
    "Require SSO for the domain's members (owners only; confirm after the preview)",
    tag="sso",
    action=_ENFORCE,
    body=EnforcementIn,
    response=EnforcementPreviewOut,
    errors=(400, 401, 403, 404, 409),
)
def enforce_sso(org_id: uuid.UUID, domain_id: uuid.UUID, access: Access, body: EnforcementIn):
    """400 without ``confirm: true`` (the message counts who is locked out) or without
    a source for the domain; 409 when already enforced or no owner is break-glass.
    Answers with the preview it acted on."""
    _, shown = service.enforce(access, domain_id, body.source, confirm=body.confirm)
    return preview_out(shown)


@bp.delete("/domains/<uuid:domain_id>/enforced-sso")
@operation("Stop requiring SSO for the domain", tag="sso", action=_ENFORCE, status=204)
def stop_enforced_sso(org_id: uuid.UUID, domain_id: uuid.UUID, access: Access):
    service.stop(access, domain_id)


@bp.put("/break-glass/<uuid:member_id>")
@operation(
    "Name an owner break-glass: they keep password sign-in under enforced SSO",
    tag="sso",
    action=_ENFORCE,
    response=BreakGlassOut,
)
def name_break_glass(org_id: uuid.UUID, member_id: uuid.UUID, access: Access):
    row = service.set_break_glass(access, member_id, True)
    return BreakGlassOut(
        member_id=row.member_id,
        email=row.member.account.email,
        effective=row.effective,
        last_used_at=row.last_used_at,
    )


@bp.delete("/break-glass/<uuid:member_id>")
@operation(
    "Unname a break-glass owner (409 for the last one while SSO is enforced)",
    tag="sso",
    action=_ENFORCE,
    status=204,
    errors=(400, 401, 403, 404, 409),
)
def unname_break_glass(org_id: uuid.UUID, member_id: uuid.UUID, access: Access):
    service.set_break_glass(access, member_id, False)
