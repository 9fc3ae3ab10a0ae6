"""JSON API for the SCIM token (docs/scim.md#token-lifecycle): read metadata, generate (raw value
once), revoke. Owner or admin only."""

from __future__ import annotations

import uuid
from datetime import datetime

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.errors import NotFoundError
from workspace.inputs import OutputModel
from workspace.scim import tokens
from workspace.security.permissions import Access

bp = api_blueprint("scim_api", __name__, "/api/v1/orgs/<uuid:org_id>")

_ACTION = "org.manage_settings"


class ScimTokenOut(OutputModel):
    configured: bool
    prefix: str | None
    last_used_at: datetime | None
    created_at: datetime | None


class ScimTokenCreated(ScimTokenOut):
    #: The raw token, shown in this response only.
    token: str


@bp.get("/scim-token")
@operation("Read the SCIM token's metadata", tag="scim", action=_ACTION, response=ScimTokenOut)
def read_token(org_id: uuid.UUID, access: Access):
    """Whether a token is configured, its non-secret prefix and when it was last used."""
    return ScimTokenOut.model_validate(tokens.token_info(access.org.id))


@bp.post("/scim-token")
@operation(
    "Generate a new SCIM token", tag="scim", action=_ACTION, response=ScimTokenCreated, status=201
)
def generate_token(org_id: uuid.UUID, access: Access):
    """A new token, returned once; the previous token stops working immediately."""
    info, raw = tokens.generate_token(access.org.id, access.account.id)
    return ScimTokenCreated(token=raw, **ScimTokenOut.model_validate(info).model_dump())


@bp.delete("/scim-token")
@operation("Revoke the SCIM token", tag="scim", action=_ACTION, status=204)
def revoke_token(org_id: uuid.UUID, access: Access):
    """The IdP is cut off at once; provisioning stops until a new token is generated."""
    if not tokens.revoke_token(access.org.id, access.account.id):
        raise NotFoundError("This organization has no SCIM token to revoke.")
