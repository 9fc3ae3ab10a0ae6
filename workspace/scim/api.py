"""JSON API for the SCIM token (docs/scim.md#token-lifecycle): read metadata, generate (raw value
once), revoke; and for the SCIM OAuth client (docs/scim.md#client-credentials): create,
read, delete, add a secret (raw value once), revoke a secret. Owner or admin only."""

from __future__ import annotations

import uuid
from datetime import datetime

from flask import current_app

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.errors import NotFoundError
from workspace.inputs import OutputModel
from workspace.scim import oauth, tokens
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


# -- OAuth client (docs/scim.md#client-credentials) -----------------------------------


class ScimSecretOut(OutputModel):
    id: uuid.UUID
    prefix: str
    state: str
    created_at: datetime
    expires_at: datetime
    last_used_at: datetime | None


class ScimSecretCreated(ScimSecretOut):
    #: The raw secret, shown in this response only.
    secret: str


class ScimOAuthClientOut(OutputModel):
    configured: bool
    client_id: str | None
    token_endpoint: str
    created_at: datetime | None
    last_used_at: datetime | None
    secrets: list[ScimSecretOut]


def _secret_out(info: oauth.SecretInfo) -> ScimSecretOut:
    return ScimSecretOut(
        id=info.id,
        prefix=info.prefix,
        state=info.state,
        created_at=info.created_at,
        expires_at=info.expires_at,
        last_used_at=info.last_used_at,
    )


def _client_out(org_id: uuid.UUID) -> ScimOAuthClientOut:
    info = oauth.client_info(org_id)
    return ScimOAuthClientOut(
        configured=info.configured,
        client_id=info.client_id,
        token_endpoint=f"{current_app.config['BASE_URL']}/scim/v2/orgs/{org_id}/oauth/token",
        created_at=info.created_at,
        last_used_at=info.last_used_at,
        secrets=[_secret_out(s) for s in info.secrets],
    )


@bp.get("/scim-oauth-client")
@operation("Read the SCIM OAuth client", tag="scim", action=_ACTION, response=ScimOAuthClientOut)
def read_client(org_id: uuid.UUID, access: Access):
    """The client id, the token endpoint, and each secret's prefix, state and last use."""
    return _client_out(access.org.id)


@bp.post("/scim-oauth-client")
@operation(
    "Create the SCIM OAuth client",
    tag="scim",
    action=_ACTION,
    response=ScimOAuthClientOut,
    status=201,
    errors=(401, 403, 409),
)
def create_client(org_id: uuid.UUID, access: Access):
    """One per org (409 when it exists); add a secret next."""
    oauth.create_client(access.org.id, access.account.id)
    return _client_out(access.org.id)


@bp.delete("/scim-oauth-client")
@operation("Delete the SCIM OAuth client", tag="scim", action=_ACTION, status=204)
def delete_client(org_id: uuid.UUID, access: Access):
    """Every secret and access token of the client stops working at once."""
    if not oauth.delete_client(access.org.id, access.account.id):
        raise NotFoundError("This organization has no SCIM OAuth client.")


@bp.post("/scim-oauth-client/secrets")
@operation(
    "Add a SCIM OAuth client secret",
    tag="scim",
    action=_ACTION,
    body=oauth.SecretIn,
    response=ScimSecretCreated,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def add_secret(org_id: uuid.UUID, access: Access, body: oauth.SecretIn):
    """A new secret, returned once; at most two are live (409 for a third)."""
    info, raw = oauth.add_secret(access.org.id, access.account.id, body)
    return ScimSecretCreated(secret=raw, **_secret_out(info).model_dump())


@bp.delete("/scim-oauth-client/secrets/<uuid:secret_id>")
@operation("Revoke a SCIM OAuth client secret", tag="scim", action=_ACTION, status=204)
def revoke_secret(org_id: uuid.UUID, secret_id: uuid.UUID, access: Access):
    """The secret and every access token issued with it stop working at once."""
    oauth.revoke_secret(access.org.id, secret_id, access.account.id)
