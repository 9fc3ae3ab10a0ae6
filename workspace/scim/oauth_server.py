"""The SCIM token endpoint's OAuth 2.0 machinery (RFC 6749 §4.4, client credentials),
built on Authlib's authorization server: Authlib parses the request, authenticates the
client (``client_secret_basic`` or ``client_secret_post``, which Entra ID uses),
answers the RFC 6749 §5.2 errors and shapes the token response; this module only
tells it where the org's client and secrets are (:mod:`workspace.scim.oauth`) and
how to store the token it issued."""

from __future__ import annotations

import logging
import uuid

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin
from authlib.oauth2.rfc6749.grants import ClientCredentialsGrant
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from flask import Response, request

from workspace.scim import oauth
from workspace.scim.models import ScimOAuthClient, ScimOAuthSecret
from workspace.security import tokens

# Authlib logs the issued token at DEBUG ("Issue token {...}"); a debug log level on
# the root logger must not put live access tokens into the logs.
logging.getLogger("authlib").setLevel(logging.INFO)

_AUTH_METHODS = ("client_secret_basic", "client_secret_post")


class _Client(ClientMixin):
    """The org's client as Authlib asks about it. ``secret`` is the live secret the
    request presented, once :meth:`check_client_secret` has found it."""

    def __init__(self, row: ScimOAuthClient) -> None:
        self.row = row
        self.secret: ScimOAuthSecret | None = None

    def get_client_id(self) -> str:
        return self.row.client_id

    def get_default_redirect_uri(self) -> None:
        return None

    def get_allowed_scope(self, scope: str) -> str:
        return ""  # one grant: the org's SCIM endpoints; there are no scopes to narrow it

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return False

    def check_client_secret(self, client_secret: str) -> bool:
        self.secret = oauth.match_secret(self.row, client_secret)
        return self.secret is not None

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return endpoint == "token" and method in _AUTH_METHODS

    def check_response_type(self, response_type: str) -> bool:
        return False

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == ClientCredentialsGrant.GRANT_TYPE


class _Grant(ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = list(_AUTH_METHODS)


def _query_client(client_id: str) -> _Client | None:
    """The client of the org in the URL only: another org's client id is unknown here."""
    org_id = (request.view_args or {}).get("org_id")
    if not isinstance(org_id, uuid.UUID) or not isinstance(client_id, str):
        return None
    row = oauth.find_client(org_id, client_id)
    return _Client(row) if row is not None else None


def _save_token(token: dict, oauth_request) -> None:
    client: _Client = oauth_request.client
    assert client.secret is not None  # authenticated above
    oauth.issue_token(client.row, client.secret, token["access_token"], token["expires_in"])


def _access_token(client, grant_type, user=None, scope=None) -> str:
    return tokens.generate(oauth.TOKEN_PREFIX)


def _expires_in(client, grant_type) -> int:
    return int(oauth.ACCESS_TOKEN_LIFETIME.total_seconds())


server = AuthorizationServer(query_client=_query_client, save_token=_save_token)
server.register_token_generator("default", BearerTokenGenerator(_access_token, None, _expires_in))
server.register_grant(_Grant)


def token_response() -> Response:
    """Authlib's answer to the token request in the current Flask request."""
    return server.create_token_response()


def presented_client_id() -> str | None:
    """The client id the request named (for the audit row of a refusal), never the secret."""
    auth = request.authorization
    if auth is not None and auth.type == "basic" and auth.username:
        return auth.username[:64]
    value = request.form.get("client_id")
    return value[:64] if value else None
