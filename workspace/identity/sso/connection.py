"""Saving, reading and deleting the org's SSO connection (docs/sso.md#connection-settings).

The email domain must be one this org has verified before the connection can be
enabled (docs/security.md): otherwise an org could route another company's people to its
own IdP and sign in as them. Sign-in re-checks it, and removing the domain disables
the connection, so sign-in stops at once. A domain another org has verified cannot be
saved at all; a domain nobody has verified may sit in several orgs' disabled drafts.
"""

from __future__ import annotations

import ipaddress
import re
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from workspace.core.emails import normalize_domain
from workspace.core.events import record_event
from workspace.core.models.domains import verified_domain_names, verifying_org
from workspace.errors import ConflictError, FieldChecks, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.identity.domains.service import domain_removed
from workspace.identity.sso import oidc
from workspace.identity.sso.models import SsoConnection
from workspace.security.crypto import seal, unseal
from workspace.types import utcnow


@dataclass
class ConnectionInput:
    email_domain: str
    issuer_url: str
    client_id: str
    client_secret: str | None = None
    redirect_uri: str | None = None
    enabled: bool = False
    sync_groups_on_login: bool = True
    groups_claim: str = "groups"
    remove_stale_synced_memberships: bool = False
    extra_scopes: str = ""
    idp_logout: bool = True


@dataclass(frozen=True)
class DiscoveryReport:
    ok: bool
    message: str
    metadata: oidc.ProviderMetadata | None = None


#: RFC 6749 §3.3: a scope token is printable ASCII but space, double quote and backslash.
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")
MAX_SCOPES_LENGTH = 200


def normalize_scopes(raw: str | None) -> str:
    """The extra scopes as stored: space-separated tokens, in the order given, without
    duplicates or the three always requested. 400 on ``extra_scopes`` for anything
    that is not a scope token (RFC 6749 §3.3)."""
    tokens: list[str] = []
    for token in (raw or "").split():
        if not _SCOPE_TOKEN.fullmatch(token):
            raise ServiceError(
                f"{token!r} is not a scope: scopes are separated by spaces and use no "
                'quotes or backslashes, such as "groups offline_access".',
                field="extra_scopes",
            )
        if token not in oidc.SCOPE.split() and token not in tokens:
            tokens.append(token)
    joined = " ".join(tokens)
    if len(joined) > MAX_SCOPES_LENGTH:
        raise ServiceError(
            f"Name at most {MAX_SCOPES_LENGTH} characters of extra scopes.", field="extra_scopes"
        )
    return joined


def default_redirect_uri() -> str:
    return current_app.config["BASE_URL"].rstrip("/") + "/auth/sso/callback"


def post_logout_redirect_uri() -> str:
    """Where the provider sends the browser after an RP-initiated logout."""
    return current_app.config["BASE_URL"].rstrip("/") + "/signin"


def backchannel_logout_uri(org_id: uuid.UUID) -> str:
    """Where the provider POSTs logout tokens for this org (docs/sso.md#sign-out)."""
    base = current_app.config["BASE_URL"].rstrip("/")
    return f"{base}/auth/sso/backchannel-logout/{org_id}"


def get_connection(org_id: uuid.UUID) -> SsoConnection | None:
    return db.session.scalar(select(SsoConnection).where(SsoConnection.org_id == org_id))


def require_connection(org_id: uuid.UUID) -> SsoConnection:
    conn = get_connection(org_id)
    if conn is None:
        raise NotFoundError("This organization has no SSO connection yet.")
    return conn


def domain_is_verified(conn: SsoConnection) -> bool:
    return conn.email_domain in verified_domain_names(conn.org_id)


def _check_url(value: str, field: str, what: str, *, https: bool = True) -> str:
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceError(
            f"The {what} must be a full https URL, such as https://login.example.com.",
            field=field,
        )
    # OIDC Core §3.1.2.1 and the OAuth security BCP: the issuer and the redirect URI
    # are https, so codes and tokens never cross the network in clear text; loopback
    # (an IdP or an instance on the admin's own machine) is the one exception.
    if https and parts.scheme == "http" and not _loopback(parts.hostname):
        raise ServiceError(
            f"The {what} must start with https:// (http:// is only for 127.0.0.1 or "
            "localhost): codes and tokens must not cross the network in clear text.",
            field=field,
        )
    if parts.query or parts.fragment:
        raise ServiceError(f"The {what} cannot carry a query or fragment.", field=field)
    return value


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def save_connection(
    org_id: uuid.UUID, data: ConnectionInput, *, actor_id: uuid.UUID | None
) -> SsoConnection:
    """Create or replace the org's connection. A blank secret keeps the stored one.
    409 when another org uses the email domain."""
    conn = get_connection(org_id)
    secret = (data.client_secret or "").strip()
    checks = FieldChecks()
    domain = checks.check(lambda: normalize_domain(data.email_domain, field="email_domain"))
    issuer = checks.check(lambda: _check_url(data.issuer_url, "issuer_url", "issuer URL"))
    redirect_uri = checks.check(
        # The default comes from BASE_URL, the operator's setting: an instance run
        # over plain http on a LAN keeps working (the page sends it back as typed);
        # another redirect URI is held to https.
        lambda: _check_url(
            data.redirect_uri or default_redirect_uri(),
            "redirect_uri",
            "redirect URI",
            https=(data.redirect_uri or "").strip() not in ("", default_redirect_uri()),
        )
    )
    client_id = data.client_id.strip()
    if not client_id:
        checks.fail("Enter the client ID registered at your identity provider.", "client_id")
    claim = (data.groups_claim or "groups").strip()
    if not claim or len(claim) > 100:
        checks.fail("The groups claim is the name of a claim, such as groups.", "groups_claim")
    scopes = checks.check(lambda: normalize_scopes(data.extra_scopes))
    checks.refuse()
    # Asked once the rest is right: a blank secret is valid (it keeps the stored one)
    # and only a first save has none to keep.
    if conn is None and not secret:
        raise ServiceError(
            "Enter the client secret from your identity provider.", field="client_secret"
        )
    issuer = issuer.rstrip("/")
    owner = verifying_org(domain)
    if owner is not None and owner != org_id:
        raise ConflictError(
            f"{domain} is verified by another organization; single sign-on for it is "
            "theirs to configure.",
            field="email_domain",
        )
    if data.enabled and domain not in verified_domain_names(org_id):
        raise ServiceError(
            f"Verify {domain} under Domains before enabling single sign-on for it.", field="enabled"
        )
    if conn is None:
        conn = SsoConnection(id=uuid.uuid4(), org_id=org_id)
        db.session.add(conn)
    conn.email_domain, conn.issuer_url, conn.client_id = domain, issuer, client_id
    conn.redirect_uri, conn.enabled = redirect_uri, data.enabled
    conn.sync_groups_on_login = data.sync_groups_on_login
    conn.groups_claim = claim
    conn.remove_stale_synced_memberships = data.remove_stale_synced_memberships
    conn.extra_scopes = scopes
    conn.idp_logout = data.idp_logout
    conn.updated_at = utcnow()
    if secret:
        conn.client_secret_sealed = seal(secret, conn.id)
    try:
        db.session.flush()
        record_event(
            org_id,
            "sso.connection.saved",
            actor_id=actor_id,
            subject=domain,
            issuer_url=issuer,
            enabled=data.enabled,
            secret_changed=bool(secret),
        )
        db.session.flush()
    except IntegrityError as exc:
        raise ConflictError(
            f"Another organization has single sign-on enabled for {domain}.",
            field="email_domain",
        ) from exc
    return conn


def set_enabled(org_id: uuid.UUID, enabled: bool, *, actor_id: uuid.UUID | None) -> SsoConnection:
    conn = require_connection(org_id)
    if enabled and not domain_is_verified(conn):
        raise ServiceError(
            f"Verify {conn.email_domain} under Domains before enabling single sign-on for it.",
            field="enabled",
        )
    conn.enabled = enabled
    conn.updated_at = utcnow()
    record_event(
        org_id,
        "sso.connection.enabled" if enabled else "sso.connection.disabled",
        actor_id=actor_id,
        subject=conn.email_domain,
    )
    db.session.flush()
    return conn


@domain_removed.connect
def _disable_for_removed_domain(
    org_id: uuid.UUID, *, domain: str, actor_id: uuid.UUID | None
) -> None:
    """A removed domain routes no one: the org's connection for it is disabled, which
    also frees the domain for an org that verifies it next."""
    conn = get_connection(org_id)
    if conn is None or conn.email_domain != domain or not conn.enabled:
        return
    conn.enabled = False
    conn.updated_at = utcnow()
    record_event(
        org_id,
        "sso.connection.disabled",
        actor_id=actor_id,
        subject=domain,
        reason="domain removed",
    )


def delete_connection(org_id: uuid.UUID, *, actor_id: uuid.UUID | None) -> None:
    conn = require_connection(org_id)
    record_event(org_id, "sso.connection.deleted", actor_id=actor_id, subject=conn.email_domain)
    db.session.delete(conn)
    db.session.flush()


def client_secret(conn: SsoConnection) -> str:
    return unseal(conn.client_secret_sealed, conn.id)


def check_discovery(conn: SsoConnection) -> DiscoveryReport:
    """What the issuer's discovery document says, or why it could not be read."""
    try:
        meta = oidc.discover(conn.issuer_url)
    except oidc.OidcError as exc:
        return DiscoveryReport(False, str(exc))
    return DiscoveryReport(
        True, f"Found the provider {meta.issuer}: sign-in at {meta.authorization_endpoint}.", meta
    )
