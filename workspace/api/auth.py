"""API authentication: ``Authorization: Bearer ws_...``; safe (GET) requests may use
the browser session instead, which lets a signed-in page fetch an export."""

from __future__ import annotations

import uuid

from flask import g, request
from sqlalchemy import select

from workspace.api.problems import ApiError
from workspace.auth import api_tokens, signin_limits
from workspace.auth.models import ApiToken
from workspace.auth.sessions import current_account
from workspace.core.events import record_event
from workspace.core.models import Account
from workspace.errors import NotFoundError
from workspace.extensions import db
from workspace.security import tokens
from workspace.security.permissions import Access, org_access
from workspace.transaction import commit_early


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def api_account() -> tuple[Account, ApiToken | None]:
    """The calling account and the token it used (None for a browser session)."""
    if "api_caller" in g:
        return g.api_caller
    raw = bearer_token()
    if raw is not None:
        token = live_token(raw)
        g.api_caller = (token.account, token)
        return g.api_caller
    if request.method in ("GET", "HEAD"):
        account = current_account()
        if account is not None:
            g.api_caller = (account, None)
            return g.api_caller
    if "Authorization" in request.headers:
        raise ApiError(401, "Use the header 'Authorization: Bearer <token>'.")
    raise ApiError(401, "Send a personal access token as 'Authorization: Bearer <token>'.")


def live_token(raw: str) -> ApiToken:
    """The live ``ws_`` token a raw bearer value names, for the JSON API and the agents'
    MCP endpoint alike. A wrong one is counted against the caller's address and
    refused: 401, or 429 once the address is over the limit. Only a wrong token meets
    the throttle: the right one is never refused for failures another client behind
    the same address sent (docs/security.md#sign-in-limits)."""
    token = api_tokens.authenticate(raw)
    if token is not None:
        return token
    if signin_limits.bearer_blocked("api"):
        raise ApiError(
            429,
            "Too many requests with a wrong bearer token from this address. "
            "Wait a minute, then try again with a valid token.",
        )
    _refused_token(raw)
    raise ApiError(401, "The bearer token is unknown or revoked.")


def _refused_token(raw: str) -> None:
    """Count a wrong token against the caller's address (docs/security.md#sign-in-limits)
    and audit it in its org when the token is one of ours that was revoked; an
    unknown token names no org and is only logged."""
    signin_limits.count_bearer_failure("api")
    row = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == tokens.digest(raw)))
    if row is None:
        return
    record_event(
        row.org_id,
        "api.token_refused",
        actor_id=row.account_id,
        subject=row.prefix,
        reason="revoked",
        ip=signin_limits.client_address(),
    )
    commit_early("a refused token's audit row must outlive the refused request")


def api_access(org_id: uuid.UUID | str) -> Access:
    """Authenticate and load the caller's access to the org in the URL. A token
    belongs to one org: used on another org's URL it finds nothing (404)."""
    cache = g.setdefault("api_access_cache", {})
    if org_id in cache:
        return cache[org_id]
    account, token = api_account()
    access = org_access(org_id, account)
    if token is not None and token.org_id != access.org.id:
        raise NotFoundError("No such organization.")
    cache[org_id] = access
    return access
