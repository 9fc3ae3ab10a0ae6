"""Domain routes of the JSON API: list, add, verify, remove (DESIGN §3)."""

from __future__ import annotations

import uuid

from workspace.api import api_access, operation
from workspace.api.blueprints import api_blueprint
from workspace.identity.domains import service
from workspace.identity.domains.schemas import DomainCreate, DomainOut, DomainVerifyOut
from workspace.security.permissions import require

bp = api_blueprint("domains_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("/domains")
@operation("List the org's domains", tag="domains", response=list[DomainOut])
def list_domains(org_id: uuid.UUID):
    access = api_access(org_id)
    require(access, "org.manage_settings")
    return [DomainOut.of(d) for d in service.list_domains(access.org.id)]


@bp.post("/domains")
@operation(
    "Add a domain (Pending, with its TXT record)",
    tag="domains",
    body=DomainCreate,
    response=DomainOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def add_domain(org_id: uuid.UUID, body: DomainCreate):
    """Accepts a bare domain, a URL or an email address. 409 when another org has
    verified the domain or this org already listed it."""
    access = api_access(org_id)
    require(access, "org.manage_settings")
    row = service.add_domain(access.org.id, body.domain, actor_id=access.account.id)
    return DomainOut.of(row)


@bp.post("/domains/<uuid:domain_id>/verify")
@operation(
    "Check the domain's TXT record now",
    tag="domains",
    response=DomainVerifyOut,
    errors=(401, 403, 404, 409, 502),
)
def verify_domain(org_id: uuid.UUID, domain_id: uuid.UUID):
    """200 either way: ``state`` tells whether it is verified and ``message`` what to
    do next. 409 when another org verified it first; 502 when the DNS resolver failed."""
    access = api_access(org_id)
    require(access, "org.manage_settings")
    result = service.verify_domain(access.org.id, domain_id, actor_id=access.account.id)
    return DomainVerifyOut(**DomainOut.of(result.domain).model_dump(), message=result.message)


@bp.delete("/domains/<uuid:domain_id>")
@operation("Remove a domain", tag="domains", status=204)
def remove_domain(org_id: uuid.UUID, domain_id: uuid.UUID):
    access = api_access(org_id)
    require(access, "org.manage_settings")
    service.remove_domain(access.org.id, domain_id, actor_id=access.account.id)
