"""The SCIM OAuth token endpoint (docs/scim.md#client-credentials):
``POST /scim/v2/orgs/<org>/oauth/token``, where an IdP trades the org's client id and a
client secret for an access token of about an hour. Authlib answers the request
(:mod:`workspace.scim.oauth_server`); failed attempts are limited like sign-ins
(docs/security.md#sign-in-limits) and recorded in the org's audit log."""

from __future__ import annotations

import json
import uuid

from flask import Response

from workspace.api.blueprints import api_blueprint
from workspace.auth import signin_limits
from workspace.core.events import record_event
from workspace.core.orgs import find_org
from workspace.extensions import limiter
from workspace.scim import oauth_server
from workspace.transaction import commit_early, transactional

# A client authenticates with its own credentials in the body or header; no cookie.
bp = api_blueprint("scim_oauth", __name__, "/scim/v2/orgs/<uuid:org_id>/oauth")


def _client_key() -> str:
    return signin_limits.name_and_address_key("scim-oauth", oauth_server.presented_client_id())


@bp.post("/token")
@limiter.limit(signin_limits.FAILED_PER_ADDRESS, deduct_when=signin_limits.failed)
@limiter.limit(
    signin_limits.FAILED_PER_NAME_AND_ADDRESS,
    key_func=_client_key,
    deduct_when=signin_limits.failed,
)
@transactional
def token(org_id: uuid.UUID) -> Response:
    """RFC 6749 §4.4.2-4.4.3: an access token for the org's SCIM endpoints."""
    response = oauth_server.token_response()
    if response.status_code >= 400:
        org = find_org(org_id)
        if org is not None:
            record_event(
                org.id,
                "scim.oauth_token.refused",
                subject=oauth_server.presented_client_id(),
                ip=signin_limits.client_address(),
            )
            commit_early("a refused token request's audit row must outlive the request")
    return response


def _too_many(error: Exception) -> Response:
    body = {
        "error": "slow_down",
        "error_description": "Too many failed token requests from this address. Wait a minute.",
    }
    return Response(json.dumps(body), status=429, mimetype="application/json")


bp.register_error_handler(429, _too_many)
