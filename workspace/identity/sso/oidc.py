"""The OIDC relying-party protocol pieces, each HTTP call through the outbound guard.

- Discovery: OpenID Connect Discovery 1.0 §4 (``/.well-known/openid-configuration``;
  the document's ``issuer`` must equal the configured issuer, §4.3).
- Authorization request: OIDC Core §3.1.2.1 with PKCE S256 (RFC 7636 §4.2) and nonce.
- Token request: RFC 6749 §4.1.3 (+ ``code_verifier``, RFC 7636 §4.5), client
  authentication by ``client_secret_basic`` unless only ``client_secret_post`` is
  offered (RFC 6749 §2.3.1).
- ID token validation: OIDC Core §3.1.3.7: signature against the JWKS, ``iss``,
  ``aud``, ``exp``/``iat``, ``nonce``, ``azp``, ``at_hash`` (Authlib's CodeIDToken
  over joserfc, as Authlib's own client does).
- UserInfo: OIDC Core §5.3; its ``sub`` must equal the id_token's (§5.3.2).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry
from requests.auth import HTTPBasicAuth

from workspace.security.outbound import OutboundError, fetch

SCOPE = "openid email profile"
#: Seconds of clock skew tolerated on exp/iat.
LEEWAY = 120


class OidcError(Exception):
    """A protocol step failed; the message is safe to show (no secrets, no tokens)."""


@dataclass(frozen=True)
class ProviderMetadata:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str
    token_auth_methods: tuple[str, ...]
    signing_algs: tuple[str, ...]
    #: RP-initiated logout (OIDC RP-Initiated Logout 1.0 §2), when advertised.
    end_session_endpoint: str | None = None


def _get_json(url: str, what: str, **kwargs: Any) -> dict[str, Any]:
    try:
        response = fetch("GET", url, **kwargs)
    except OutboundError as exc:
        raise OidcError(f"Could not fetch the {what}: {exc}") from exc
    if response.status_code != 200:
        raise OidcError(f"The {what} at {url} answered HTTP {response.status_code}.")
    try:
        data = response.json()
    except ValueError as exc:
        raise OidcError(f"The {what} at {url} is not JSON.") from exc
    if not isinstance(data, dict):
        raise OidcError(f"The {what} at {url} is not a JSON object.")
    return data


def discover(issuer_url: str) -> ProviderMetadata:
    """Read and check the provider's discovery document."""
    issuer = issuer_url.rstrip("/")
    url = issuer + "/.well-known/openid-configuration"
    doc = _get_json(url, "discovery document")
    missing = [
        k
        for k in (
            "issuer",
            "authorization_endpoint",
            "token_endpoint",
            "jwks_uri",
            "userinfo_endpoint",
        )
        if not isinstance(doc.get(k), str)
    ]
    if missing:
        raise OidcError(f"The discovery document at {url} lacks {', '.join(missing)}.")
    if doc["issuer"].rstrip("/") != issuer:
        raise OidcError(
            f"The provider calls itself {doc['issuer']!r}, not {issuer!r}: use "
            "exactly the issuer it announces."
        )
    return ProviderMetadata(
        issuer=doc["issuer"],
        authorization_endpoint=doc["authorization_endpoint"],
        token_endpoint=doc["token_endpoint"],
        userinfo_endpoint=doc["userinfo_endpoint"],
        jwks_uri=doc["jwks_uri"],
        token_auth_methods=tuple(
            doc.get("token_endpoint_auth_methods_supported") or ("client_secret_basic",)
        ),
        signing_algs=tuple(doc.get("id_token_signing_alg_values_supported") or ("RS256",)),
        end_session_endpoint=(
            doc["end_session_endpoint"]
            if isinstance(doc.get("end_session_endpoint"), str)
            else None
        ),
    )


def new_pkce_verifier() -> str:
    """43-128 characters from the unreserved set (RFC 7636 §4.1); 64 here."""
    return secrets.token_urlsafe(48)


def authorization_url(
    meta: ProviderMetadata,
    *,
    client_id: str,
    redirect_uri: str,
    state: str,
    nonce: str,
    code_verifier: str,
    extra_scopes: str = "",
) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": f"{SCOPE} {extra_scopes}".strip(),
        "state": state,
        "nonce": nonce,
        "code_challenge": create_s256_code_challenge(code_verifier),
        "code_challenge_method": "S256",
    }
    sep = "&" if "?" in meta.authorization_endpoint else "?"
    return meta.authorization_endpoint + sep + urlencode(params)


def exchange_code(
    meta: ProviderMetadata,
    *,
    client_id: str,
    client_secret: str,
    code: str,
    redirect_uri: str,
    code_verifier: str,
) -> dict[str, Any]:
    """The token response (``access_token``, ``id_token``...)."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": code_verifier,
    }
    kwargs: dict[str, Any] = {"headers": {"Accept": "application/json"}}
    if (
        "client_secret_basic" not in meta.token_auth_methods
        and "client_secret_post" in meta.token_auth_methods
    ):
        form |= {"client_id": client_id, "client_secret": client_secret}
    else:
        # RFC 6749 §2.3.1: both are form-urlencoded before going into Basic auth,
        # so a secret holding ':', '%' or non-ASCII survives the trip.
        kwargs["auth"] = HTTPBasicAuth(quote(client_id, safe=""), quote(client_secret, safe=""))
    try:
        response = fetch("POST", meta.token_endpoint, data=form, **kwargs)
    except OutboundError as exc:
        raise OidcError(f"Could not reach the token endpoint: {exc}") from exc
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code != 200 or not isinstance(data, dict):
        error = data.get("error") if isinstance(data, dict) else None
        raise OidcError(
            "The identity provider refused the sign-in code"
            + (f" ({error})." if isinstance(error, str) else f" (HTTP {response.status_code}).")
        )
    if not isinstance(data.get("id_token"), str) or not isinstance(data.get("access_token"), str):
        raise OidcError("The identity provider's token response has no id_token or access_token.")
    return data


def key_set(meta: ProviderMetadata) -> KeySet:
    """The provider's published signing keys (its JWKS)."""
    keys = _get_json(meta.jwks_uri, "provider's key set (JWKS)")
    try:
        return KeySet.import_key_set(keys)  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise OidcError("The provider's key set (JWKS) cannot be read.") from exc


def decode_signed(meta: ProviderMetadata, keys: KeySet, raw: str, refusal: str) -> jwt.Token:
    """A JWT the provider signed with one of its published keys and an algorithm it
    advertises (id_tokens and logout tokens alike); ``OidcError(refusal)`` otherwise.
    Claims are not checked here: each kind of token has its own rules."""
    try:
        return jwt.decode(
            raw,
            key=keys,
            registry=JWSRegistry(algorithms=list(meta.signing_algs), strict_check_header=False),
        )
    except (JoseError, ValueError, TypeError) as exc:
        raise OidcError(refusal) from exc


def validate_id_token(
    meta: ProviderMetadata, id_token: str, *, client_id: str, nonce: str, access_token: str
) -> dict[str, Any]:
    """The id_token's claims after every check of OIDC Core §3.1.3.7."""
    token = decode_signed(
        meta,
        key_set(meta),
        id_token,
        "The id_token's signature does not match the identity provider's published keys.",
    )
    claims = CodeIDToken(
        token.claims,
        token.header,
        {
            "iss": {"essential": True, "value": meta.issuer},
            "aud": {"essential": True, "value": client_id},
        },
        {"nonce": nonce, "client_id": client_id, "access_token": access_token},
    )
    try:
        claims.validate(leeway=LEEWAY)
    except JoseError as exc:
        claim = getattr(exc, "claim", None) or str(exc)
        if "nonce" in str(claim):
            raise OidcError("The id_token's nonce does not match this sign-in attempt.") from exc
        raise OidcError(f"The id_token failed validation ({claim}).") from exc
    return dict(claims)


def fetch_userinfo(meta: ProviderMetadata, access_token: str) -> dict[str, Any]:
    return _get_json(
        meta.userinfo_endpoint,
        "userinfo endpoint",
        headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json"},
    )
