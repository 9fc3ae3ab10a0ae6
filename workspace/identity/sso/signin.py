"""SSO sign-in in order (docs/sso.md): start hands out the IdP's authorization URL; the
callback checks the state, exchanges the code, validates the id_token, reads the
profile from userinfo, checks the email and its domain, then provisions the member
and runs group sync. The view ends it through :func:`workspace.auth.signin.finish`.

Every refusal raises :class:`workspace.auth.signin.SignInRefused` (recorded in the
org's events as ``auth.sso.rejected`` when the org is known), and the view refuses
through :func:`workspace.auth.signin.refuse`, which drops anything half written.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from workspace.auth.login import provision_member
from workspace.auth.signin import SignInRefused
from workspace.core.accounts import MembershipEnded, canonical_email
from workspace.core.emails import normalize_domain
from workspace.core.events import record_event
from workspace.core.models import Account, Org
from workspace.core.models.accounts import NAME_SIZE
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.identity.groupsync import service as groupsync
from workspace.identity.sso import connection, oidc, preview, state
from workspace.identity.sso.models import SsoConnection
from workspace.inputs import fit_external
from workspace.security.crypto import SecretUnreadable, unseal

#: The display name kept from the IdP's profile, and how much of its error text we show.
IDP_ERROR_SIZE = 100


def _refused(
    message: str, *, status: int = 403, reason: str = "rejected", org_id: uuid.UUID | None = None
) -> SignInRefused:
    """An SSO refusal: recorded as ``auth.sso.rejected`` with its message."""
    return SignInRefused(
        message,
        reason=reason,
        status=status,
        org_id=org_id,
        method="sso",
        audit={"message": _printable(message)},
    )


@dataclass(frozen=True)
class SignInResult:
    org: Org
    account: Account
    created: bool
    next_path: str | None
    sync: groupsync.SyncPlan | None
    #: The IdP's side of this sign-in, for sign-out (docs/sso.md#sign-out).
    idp: IdpSignIn | None = None


@dataclass(frozen=True)
class IdpSignIn:
    """What the IdP said about its session: ``sub``, ``sid`` (when it sends one) and
    the raw id_token, the hint of an RP-initiated logout."""

    sub: str
    sid: str | None
    id_token: str


def _usable_connection(domain: str) -> SsoConnection | None:
    conn = db.session.scalar(
        select(SsoConnection).where(
            SsoConnection.email_domain == domain, SsoConnection.enabled.is_(True)
        )
    )
    if conn is None or not connection.domain_is_verified(conn):
        return None
    return conn


def start(domain_or_email: str | None, *, binding: str, next_path: str | None) -> str:
    """The IdP authorization URL for the org whose enabled SSO covers the domain.
    Adds the attempt row (flushed; committed with the redirect)."""
    try:
        domain = normalize_domain(domain_or_email)
    except ServiceError as exc:
        raise _refused(exc.message, status=400, reason="bad_domain") from exc
    conn = _usable_connection(domain)
    if conn is None:
        raise _refused(
            f"No enabled single sign-on is configured for {domain}. Sign in "
            "with your password, or ask your admin to set up SSO.",
            status=404,
            reason="no_sso",
        )
    try:
        meta = oidc.discover(conn.issuer_url)
    except oidc.OidcError as exc:
        raise _refused(
            f"Your identity provider could not be reached: {exc}", status=502, reason="discovery"
        ) from exc
    nonce, verifier = secrets.token_urlsafe(24), oidc.new_pkce_verifier()
    signed = state.issue(
        conn.org_id, nonce=nonce, code_verifier=verifier, binding=binding, next_path=next_path
    )
    return oidc.authorization_url(
        meta,
        client_id=conn.client_id,
        redirect_uri=conn.redirect_uri,
        state=signed,
        nonce=nonce,
        code_verifier=verifier,
        extra_scopes=conn.extra_scopes,
    )


def _says_verified(value: Any) -> bool:
    """True only for the JSON boolean true or the string "true" (some providers send
    strings); 1, "yes", "no", 0, null and everything else are not a verification."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _email_verified_false(*sources: dict[str, Any]) -> bool:
    """The provider sent ``email_verified`` with anything but true: refused. A
    provider that omits the claim is trusted for its org's verified domain."""
    return any(
        "email_verified" in claims and not _says_verified(claims["email_verified"])
        for claims in sources
    )


def _display_name(profile: dict[str, Any]) -> str | None:
    name = profile.get("name")
    if isinstance(name, str) and name.strip():
        return fit_external(_printable(name).strip(), NAME_SIZE) or None
    parts = [profile.get(k) for k in ("given_name", "family_name")]
    joined = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return fit_external(_printable(joined), NAME_SIZE) or None


def _name_part(profile: dict[str, Any], claim: str) -> str | None:
    """The ``given_name`` or ``family_name`` claim, cleaned like the display name;
    None when absent, blank or not a string."""
    value = profile.get(claim)
    if not isinstance(value, str):
        return None
    return fit_external(_printable(value).strip(), NAME_SIZE) or None


def _printable(text: str) -> str:
    """What the IdP sent, without control characters (PostgreSQL holds no NUL)."""
    return "".join(ch for ch in text if ch.isprintable())


def _idp_error_message(error: str) -> str:
    return (
        f"Your identity provider did not sign you in ({fit_external(error, IDP_ERROR_SIZE)}). "
        "Start the sign-in again if this was a mistake."
    )


def callback(
    *, state_value: str | None, binding: str | None, code: str | None, error: str | None
) -> SignInResult:
    """Finish the sign-in in named steps; provisions and syncs (flushed, not committed)."""
    attempt = _attempt(state_value, binding, error)
    org_id = attempt.org_id
    conn = _live_connection(org_id)
    profile, id_claims, id_token = _exchange(conn, attempt, code)
    email = _email(conn, profile, id_claims)
    org = db.session.get(Org, org_id)
    try:
        account, _member, created = provision_member(
            org,
            email,
            _display_name(profile),
            via="sso",
            given_name=_name_part(profile, "given_name"),
            family_name=_name_part(profile, "family_name"),
            next_path=attempt.next_path,
        )
    except SignInRefused:
        raise  # a link its holder confirms first
    except MembershipEnded as exc:
        raise _refused(exc.message, reason="deactivated", org_id=org_id) from exc
    except ServiceError as exc:
        raise _refused(exc.message, reason="provision", org_id=org_id) from exc
    sync = None
    if conn.sync_groups_on_login:
        sync = _sync_groups(conn, account, email, profile, id_claims)
    sid = id_claims.get("sid")
    idp = IdpSignIn(str(id_claims["sub"]), sid if isinstance(sid, str) else None, id_token)
    return SignInResult(org, account, created, attempt.next_path, sync, idp)


def _attempt(state_value: str | None, binding: str | None, error: str | None):
    """Step 1: the state names an attempt this browser started, unused and recent; an
    error from the IdP ends the sign-in with the IdP's words."""
    try:
        attempt = state.consume(state_value, binding)
    except SignInRefused as exc:
        if error:  # some providers drop the state on errors; their error is the news
            raise _refused(_idp_error_message(error), reason="idp_error") from exc
        raise
    if error:
        raise _refused(
            f"Your identity provider did not sign you in ({fit_external(error, IDP_ERROR_SIZE)}).",
            status=403,
            reason="idp_error",
            org_id=attempt.org_id,
        )
    return attempt


def _live_connection(org_id: uuid.UUID) -> SsoConnection:
    """Step 2: the org's connection is still enabled, on a domain it still verifies."""
    conn = connection.get_connection(org_id)
    if conn is None or not conn.enabled or not connection.domain_is_verified(conn):
        raise _refused(
            "Single sign-on is no longer enabled for this organization.",
            status=403,
            reason="no_sso",
            org_id=org_id,
        )
    return conn


def _exchange(
    conn: SsoConnection, attempt, code: str | None
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Step 3: the code for tokens (PKCE), the id_token validated against the IdP's
    JWKS and this attempt's nonce, and the userinfo profile of the same subject."""
    org_id = attempt.org_id
    if not code:
        raise _refused(
            "The identity provider sent no sign-in code. Start again.",
            status=400,
            reason="no_code",
            org_id=org_id,
        )
    try:
        verifier = unseal(attempt.code_verifier_sealed, attempt.id)
        secret = connection.client_secret(conn)
    except SecretUnreadable as exc:
        raise _refused(
            "The SSO settings cannot be read with the current encryption "
            "key; ask your admin to save the client secret again.",
            status=500,
            reason="secret",
            org_id=org_id,
        ) from exc
    try:
        meta = oidc.discover(conn.issuer_url)
        tokens = oidc.exchange_code(
            meta,
            client_id=conn.client_id,
            client_secret=secret,
            code=code,
            redirect_uri=conn.redirect_uri,
            code_verifier=verifier,
        )
        id_claims = oidc.validate_id_token(
            meta,
            tokens["id_token"],
            client_id=conn.client_id,
            nonce=attempt.nonce,
            access_token=tokens["access_token"],
        )
        profile = oidc.fetch_userinfo(meta, tokens["access_token"])
    except oidc.OidcError as exc:
        raise _refused(str(exc), status=403, reason="oidc", org_id=org_id) from exc
    if profile.get("sub") != id_claims.get("sub"):
        raise _refused(
            "The identity provider's profile belongs to another user than its id_token.",
            reason="sub_mismatch",
            org_id=org_id,
        )
    return profile, id_claims, tokens["id_token"]


def _email(conn: SsoConnection, profile: dict[str, Any], id_claims: dict[str, Any]) -> str:
    """Step 4: one usable, verified email address on exactly the connection's domain."""
    org_id = conn.org_id
    email = profile.get("email")
    if isinstance(email, str) and "@" in email and not email.isprintable():
        raise _refused(
            "Your identity provider sent an email address with control characters in "
            "it, so you cannot be signed in. Ask your admin to check the email claim.",
            reason="bad_email",
            org_id=org_id,
        )
    if not isinstance(email, str) or "@" not in email:
        raise _refused(
            "Your identity provider sent no email address, so you cannot be "
            "signed in. Ask your admin to release the email claim.",
            reason="no_email",
            org_id=org_id,
        )
    try:
        email = canonical_email(email)  # one account for every spelling of the address
    except ServiceError as exc:
        raise _refused(
            f"Your identity provider sent an email address that cannot be used: {exc.message}",
            reason="bad_email",
            org_id=org_id,
        ) from exc
    if _email_verified_false(profile, id_claims):
        raise _refused(
            f"Your identity provider says {email} is not verified.",
            reason="email_unverified",
            org_id=org_id,
        )
    try:
        domain = normalize_domain(email.rsplit("@", 1)[1])
    except ServiceError:
        domain = email.rsplit("@", 1)[1]
    if domain != conn.email_domain:
        raise _refused(
            f"This single sign-on accepts only {conn.email_domain} addresses, not {email}.",
            reason="other_domain",
            org_id=org_id,
        )
    return email


def _sync_groups(
    conn, account: Account, email: str, profile: dict[str, Any], id_claims: dict[str, Any]
) -> groupsync.SyncPlan | None:
    """Reconcile project roles from the groups claim (userinfo, else id_token). An
    absent claim is not an empty one: the provider may simply not have been asked
    for it (Keycloak's optional ``groups`` scope), so nothing changes and
    ``sso.sync.skipped`` records why. A claim present and empty is "in no group"."""
    claims = profile if conn.groups_claim in profile else id_claims
    if conn.groups_claim not in claims:
        record_event(
            conn.org_id,
            "sso.sync.skipped",
            subject=email,
            reason="no_groups_claim",
            message=preview.no_claim_message(conn.groups_claim),
        )
        return None
    groups = groupsync.groups_from_claims(claims, conn.groups_claim)
    return groupsync.reconcile(
        conn.org_id, account.id, email, groups, remove_stale=conn.remove_stale_synced_memberships
    )
