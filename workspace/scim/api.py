"""JSON API for the SCIM token (DESIGN §3, §4): read metadata, generate (raw value
once), revoke. Owner or admin only."""

from __future__ import annotations

import uuid
from datetime import datetime

from workspace.api import api_access, operation
from workspace.api.blueprints import api_blueprint
from workspace.api.models import OutputModel
from workspace.errors import NotFoundError
from workspace.scim import tokens
from workspace.security.permissions import require

bp = api_blueprint("scim_api", __name__, "/api/v1/orgs/<uuid:org_id>")


class ScimTokenOut(OutputModel):
    configured: bool
    prefix: str | None
    last_used_at: datetime | None
    created_at: datetime | None


class ScimTokenCreated(ScimTokenOut):
    #: The raw token, shown in this response only.
    token: str


@bp.get("/scim-token")
@operation("Read the SCIM token's metadata", tag="scim", response=ScimTokenOut)
def read_token(org_id: uuid.UUID):
    """Whether a token is configured, its non-secret prefix and when it was last used."""
    access = api_access(org_id)
    require(access, "org.manage_settings")
    return ScimTokenOut.model_validate(tokens.token_info(access.org.id))


@bp.post("/scim-token")
@operation("Generate a new SCIM token", tag="scim", response=ScimTokenCreated, status=201)
def generate_token(org_id: uuid.UUID):
    """A new token, returned once; the previous token stops working immediately."""
    access = api_access(org_id)
    require(access, "org.manage_settings")
    info, raw = tokens.generate_token(access.org.id, access.account.id)
    return ScimTokenCreated(token=raw, **ScimTokenOut.model_validate(info).model_dump())


@bp.delete("/scim-token")
@operation("Revoke the SCIM token", tag="scim", status=204)
def revoke_token(org_id: uuid.UUID):
    """The IdP is cut off at once; provisioning stops until a new token is generated."""
    access = api_access(org_id)
    require(access, "org.manage_settings")
    if not tokens.revoke_token(access.org.id, access.account.id):
        raise NotFoundError("This organization has no SCIM token to revoke.")
