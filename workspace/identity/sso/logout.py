"""Sign-out that reaches the IdP, both ways (docs/sso.md#sign-out).

- RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2): signing out of a
  session an SSO sign-in started sends the browser to the provider's
  ``end_session_endpoint`` with the sign-in's ``id_token_hint`` and a
  ``post_logout_redirect_uri`` back to our sign-in page, when the provider
  advertises the endpoint and the connection's ``idp_logout`` is on.
- Back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.4-2.6): the
  provider POSTs a signed ``logout_token``; it is checked against the provider's
  JWKS (signature, ``iss``, ``aud``, ``iat``, ``jti`` not replayed, the ``events``
  member, ``sub`` and/or ``sid``, no ``nonce``) and ends the sessions it names.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.errors import JoseError
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from workspace.auth.models import AuthSession
from workspace.core.events import record_event
from workspace.extensions import db
from workspace.identity.sso import connection, oidc
from workspace.identity.sso.models import SsoConnection, SsoLogoutToken
from workspace.identity.sso.signin import IdpSignIn
from workspace.security.crypto import SecretUnreadable, seal, unseal
from workspace.types import utcnow

log = logging.getLogger(__name__)

BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"
#: A logout token older than this is refused (§2.6 lets the RP bound ``iat``); its
#: ``jti`` is remembered as long, so a replay inside the window is refused too.
MAX_TOKEN_AGE = timedelta(minutes=10)


class LogoutRefused(Exception):
    """A logout token we do not act on; the message says why (no token content)."""


def remember(row: AuthSession, org_id: uuid.UUID, idp: IdpSignIn | None) -> None:
    """Keep the IdP's side of an SSO sign-in with its session: the org, ``sub`` and
    ``sid`` for back-channel logout, the id_token sealed for RP-initiated logout."""
    if idp is None:
        return
    row.sso_org_id = org_id
    row.idp_sub = idp.sub[:255]
    row.idp_sid = idp.sid[:255] if idp.sid else None
    row.idp_id_token_sealed = seal(idp.id_token, row.id)
    db.session.flush()


def end_session_url(row: AuthSession | None) -> str | None:
    """The provider's end-session URL for a session an SSO sign-in started, or None
    (not SSO, switched off, not advertised, or the provider cannot be reached: the
    local sign-out stands either way)."""
    if row is None or row.sso_org_id is None or not row.idp_id_token_sealed:
        return None
    conn = connection.get_connection(row.sso_org_id)
    if conn is None or not conn.idp_logout:
        return None
    try:
        meta = oidc.discover(conn.issuer_url)
        hint = unseal(row.idp_id_token_sealed, row.id)
    except (oidc.OidcError, SecretUnreadable) as exc:
        log.warning("RP-initiated logout skipped for org %s: %s", row.sso_org_id, exc)
        return None
    if not meta.end_session_endpoint:
        return None
    params = {
        "id_token_hint": hint,
        "post_logout_redirect_uri": connection.post_logout_redirect_uri(),
        "client_id": conn.client_id,
    }
    sep = "&" if "?" in meta.end_session_endpoint else "?"
    return meta.end_session_endpoint + sep + urlencode(params)


def _claims(conn: SsoConnection, raw: str) -> dict[str, Any]:
    """The logout token's claims after every check of §2.6, or LogoutRefused."""
    try:
        meta = oidc.discover(conn.issuer_url)
        keys = oidc.key_set(meta)
    except oidc.OidcError as exc:
        raise LogoutRefused(f"The provider's keys could not be read: {exc}") from exc
    try:
        token = oidc.decode_signed(
            meta,
            keys,
            raw,
            "The logout token is not a JWT signed with the provider's published keys.",
        )
    except oidc.OidcError as exc:
        raise LogoutRefused(str(exc)) from exc
    registry = jwt.JWTClaimsRegistry(
        leeway=oidc.LEEWAY,
        iss={"essential": True, "value": meta.issuer},
        aud={"essential": True, "value": conn.client_id},
        iat={"essential": True},
        jti={"essential": True},
    )
    try:
        registry.validate(token.claims)
    except JoseError as exc:
        claim = getattr(exc, "claim", None) or exc.error
        raise LogoutRefused(f"The logout token failed validation ({claim}).") from exc
    claims = dict(token.claims)
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(BACKCHANNEL_EVENT), dict):
        raise LogoutRefused("The logout token has no back-channel logout event.")
    if "nonce" in claims:
        raise LogoutRefused("A logout token must not carry a nonce.")
    if not isinstance(claims.get("sub"), str) and not isinstance(claims.get("sid"), str):
        raise LogoutRefused("The logout token names neither a sub nor a sid.")
    if not isinstance(claims["jti"], str) or not isinstance(claims["iat"], int | float):
        raise LogoutRefused("The logout token's jti or iat is malformed.")
    if utcnow().timestamp() - claims["iat"] > MAX_TOKEN_AGE.total_seconds() + oidc.LEEWAY:
        raise LogoutRefused("The logout token is too old.")
    return claims


def _first_use(org_id: uuid.UUID, jti: str) -> None:
    """Record the ``jti``; a replay (the same ``jti`` within the window) is refused."""
    now = utcnow()
    db.session.execute(delete(SsoLogoutToken).where(SsoLogoutToken.expires_at < now))
    try:
        with db.session.begin_nested():
            db.session.add(
                SsoLogoutToken(org_id=org_id, jti=jti[:255], expires_at=now + MAX_TOKEN_AGE * 2)
            )
    except IntegrityError as exc:
        raise LogoutRefused("This logout token was already used (jti replayed).") from exc


def backchannel_logout(org_id: uuid.UUID, raw: str | None) -> int:
    """End the sessions a valid logout token names; returns how many. Flushes."""
    if not raw:
        raise LogoutRefused("Send the logout_token form parameter.")
    conn = connection.get_connection(org_id)
    if conn is None or not conn.enabled:
        raise LogoutRefused("This organization has no enabled SSO connection.")
    claims = _claims(conn, raw)
    _first_use(org_id, claims["jti"])
    where = [AuthSession.sso_org_id == org_id, AuthSession.revoked_at.is_(None)]
    if isinstance(claims.get("sid"), str):
        where.append(AuthSession.idp_sid == claims["sid"])
    if isinstance(claims.get("sub"), str):
        where.append(AuthSession.idp_sub == claims["sub"])
    result = db.session.execute(
        update(AuthSession)
        .where(*where)
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    ended = result.rowcount
    subject = db.session.scalar(
        select(SsoConnection.issuer_url).where(SsoConnection.org_id == org_id)
    )
    record_event(
        org_id,
        "auth.sso.backchannel_logout",
        subject=subject,
        sessions=ended,
        via="sso",
    )
    db.session.flush()
    return ended
