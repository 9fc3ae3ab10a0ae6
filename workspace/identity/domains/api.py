"""Domain routes of the JSON API: list, add, verify, remove (docs/api.md)."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.identity.domains import service
from workspace.identity.domains.schemas import DomainCreate, DomainOut, DomainVerifyOut
from workspace.security.permissions import Access

bp = api_blueprint("domains_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("/domains")
@operation(
    "List the org's domains",
    tag="domains",
    action="org.manage_settings",
    response=list[DomainOut],
)
def list_domains(org_id: uuid.UUID, access: Access):
    return [DomainOut.of(d) for d in service.list_domains(access.org.id)]


@bp.post("/domains")
@operation(
    "Add a domain (Pending, with its TXT record)",
    tag="domains",
    action="org.manage_settings",
    body=DomainCreate,
    response=DomainOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def add_domain(org_id: uuid.UUID, access: Access, body: DomainCreate):
    """Accepts a bare domain, a URL or an email address. 409 when another org has
    verified the domain or this org already listed it."""
    row = service.add_domain(access.org.id, body.domain, actor_id=access.account.id)
    return DomainOut.of(row)


@bp.post("/domains/<uuid:domain_id>/verify")
@operation(
    "Check the domain's TXT record now",
    tag="domains",
    action="org.manage_settings",
    response=DomainVerifyOut,
    errors=(401, 403, 404, 409, 502),
)
def verify_domain(org_id: uuid.UUID, domain_id: uuid.UUID, access: Access):
    """200 either way: ``state`` tells whether it is verified and ``message`` what to
    do next. 409 when another org verified it first; 502 when the DNS resolver failed."""
    result = service.verify_domain(access.org.id, domain_id, actor_id=access.account.id)
    return DomainVerifyOut(**DomainOut.of(result.domain).model_dump(), message=result.message)


@bp.delete("/domains/<uuid:domain_id>")
@operation("Remove a domain", tag="domains", action="org.manage_settings", status=204)
def remove_domain(org_id: uuid.UUID, domain_id: uuid.UUID, access: Access):
    service.remove_domain(access.org.id, domain_id, actor_id=access.account.id)
