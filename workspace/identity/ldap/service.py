"""Saving, reading, deleting and testing an org's LDAP connection (docs/ldap.md)."""

from __future__ import annotations

import ssl
import uuid
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from flask import current_app

from workspace.core.events import record_event
from workspace.errors import FieldChecks, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.identity.ldap import directory
from workspace.identity.ldap.directory import DirectoryError, DirectorySettings
from workspace.identity.ldap.filters import (
    InvalidFilter,
    check_filter,
    dn_key,
    is_attribute_name,
    sample_filter,
)
from workspace.identity.ldap.models import LdapConnection, connection_for
from workspace.security.crypto import SecretUnreadable, seal, unseal

#: How many entries the test connection asks for: enough to show the filter works.
SAMPLE_SIZE = 5


@dataclass(frozen=True)
class ConnectionInput:
    """What an admin submits; ``bind_password`` None or blank keeps the stored one."""

    server_uri: str
    bind_dn: str
    search_base: str
    search_filter: str
    bind_password: str | None = None
    email_attribute: str = "mail"
    given_name_attribute: str = "givenName"
    family_name_attribute: str = "sn"
    use_tls: bool = True
    ca_cert: str | None = None

    def __repr__(self) -> str:  # the dataclass default would print the password
        return f"ConnectionInput({self.server_uri!r}, bind_dn={self.bind_dn!r})"


@dataclass(frozen=True)
class TestResult:
    ok: bool
    message: str
    sample_count: int = 0
    reason: str | None = None


def get_connection(org_id: uuid.UUID) -> LdapConnection:
    row = connection_for(org_id)
    if row is None:
        raise NotFoundError("This organization has no LDAP connection yet.")
    return row


def validate(data: ConnectionInput, *, has_stored_password: bool) -> ConnectionInput:
    """The input with whitespace trimmed, or a ServiceError naming the field to fix."""
    data = replace(
        data,
        server_uri=data.server_uri.strip(),
        bind_dn=data.bind_dn.strip(),
        search_base=data.search_base.strip(),
        search_filter=data.search_filter.strip(),
        email_attribute=data.email_attribute.strip(),
        given_name_attribute=data.given_name_attribute.strip(),
        family_name_attribute=data.family_name_attribute.strip(),
        ca_cert=(data.ca_cert or "").strip() or None,
    )
    checks = FieldChecks()
    for name in ("server_uri", "bind_dn", "search_base", "search_filter"):
        # Control characters have no place in a DN, URI or filter template (and
        # PostgreSQL cannot store NUL).
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in getattr(data, name)):
            checks.fail(CONTROL_CHARACTERS, name)
    if data.ca_cert and "\x00" in data.ca_cert:
        checks.fail("The CA certificate contains a NUL byte.", "ca_cert")
    elif data.ca_cert:
        checks.check(lambda: _check_ca(data.ca_cert))
    if not checks.failed("server_uri"):
        checks.check(lambda: _check_uri(data.server_uri, data.use_tls))
    for name, label in (("bind_dn", "bind DN"), ("search_base", "search base")):
        if not getattr(data, name):
            checks.fail(f"Enter the {label}.", name)
    # Saved unchecked, "garbage" showed up only as a failed test or sign-in. A bind
    # name may also be Active Directory's user@domain or DOMAIN\user; a base is a DN.
    if data.search_base and not checks.failed("search_base") and dn_key(data.search_base) is None:
        checks.fail(SEARCH_BASE_HINT, "search_base")
    if data.bind_dn and not checks.failed("bind_dn") and not _bind_name(data.bind_dn):
        checks.fail(BIND_DN_HINT, "bind_dn")
    if not checks.failed("search_filter"):
        checks.check(lambda: _check_filter(data.search_filter))
    for name in ("email_attribute", "given_name_attribute", "family_name_attribute"):
        if not is_attribute_name(getattr(data, name)):
            checks.fail(ATTRIBUTE_HINT, name)
    checks.refuse()
    # Asked once the rest is right: a blank password is valid (it keeps the stored
    # one) and only a first save has none to keep.
    if not data.bind_password and not has_stored_password:
        raise ServiceError("Enter the service account's bind password.", field="bind_password")
    return data


SEARCH_BASE_HINT = "Enter the search base as a DN, such as ou=people,dc=example,dc=com."
BIND_DN_HINT = (
    "Enter the bind DN as a DN, such as cn=svc,ou=people,dc=example,dc=com "
    "(Active Directory also takes svc@example.com or EXAMPLE\\svc)."
)
CONTROL_CHARACTERS = "Remove the control characters (such as tabs or line breaks) from this field."
ATTRIBUTE_HINT = (
    "Enter an attribute name such as mail, givenName or sn (letters, digits and hyphens)."
)


def _bind_name(name: str) -> bool:
    """A DN, or an Active Directory logon name (svc@example.com, EXAMPLE\\svc)."""
    local, at, domain = name.partition("@")
    if at and local and "." in domain and " " not in name:
        return True
    realm, slash, user = name.partition("\\")
    if slash and realm and user and " " not in realm:
        return True
    return dn_key(name) is not None


def _check_filter(template: str) -> None:
    try:
        check_filter(template)
    except InvalidFilter as exc:
        raise ServiceError(str(exc), field="search_filter") from None


def _check_uri(uri: str, use_tls: bool) -> None:
    parts = urlsplit(uri)
    if parts.scheme not in ("ldap", "ldaps") or not parts.hostname:
        raise ServiceError(
            "Enter the server as ldap://host[:port] or ldaps://host[:port].", field="server_uri"
        )
    try:
        parts.port  # noqa: B018 - raises on a port outside 0-65535
    except ValueError:
        raise ServiceError(
            "The port in the server address is not a number from 1 to 65535.", field="server_uri"
        ) from None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ServiceError(
            "Give only the scheme, host and port of the server; put the "
            "search base in its own field.",
            field="server_uri",
        )
    if parts.scheme == "ldaps" and not use_tls:
        raise ServiceError(
            "ldaps:// always uses TLS: turn TLS on, or use ldap:// for an unencrypted connection.",
            field="use_tls",
        )


def _check_ca(pem: str) -> None:
    if "-----BEGIN CERTIFICATE-----" not in pem:
        raise ServiceError(
            "Paste the CA certificate in PEM form (-----BEGIN CERTIFICATE----- ...).",
            field="ca_cert",
        )
    try:
        ssl.create_default_context(cadata=pem)
    except (ssl.SSLError, ValueError):
        raise ServiceError(
            "The CA certificate could not be read; paste the whole PEM block.", field="ca_cert"
        ) from None


def save_connection(
    org_id: uuid.UUID, data: ConnectionInput, *, actor_id: uuid.UUID | None
) -> LdapConnection:
    """Create or replace the org's connection. Does not commit."""
    row = connection_for(org_id)
    data = validate(data, has_stored_password=bool(row and row.bind_password_sealed))
    created = row is None
    if row is None:
        # The id is the sealing's associated data, so it must exist before sealing.
        row = LdapConnection(id=uuid.uuid4(), org_id=org_id)
        db.session.add(row)
    for name in (
        "server_uri",
        "bind_dn",
        "search_base",
        "search_filter",
        "email_attribute",
        "given_name_attribute",
        "family_name_attribute",
        "use_tls",
        "ca_cert",
    ):
        setattr(row, name, getattr(data, name))
    if data.bind_password:
        row.bind_password_sealed = seal(data.bind_password, row.id)
    db.session.flush()
    record_event(
        org_id,
        "ldap.connection_saved",
        actor_id=actor_id,
        subject=row.server_uri,
        created=created,
        bind_password_changed=bool(data.bind_password),
    )
    return row


def delete_connection(org_id: uuid.UUID, *, actor_id: uuid.UUID | None) -> None:
    """Remove the org's connection; directory sign-in stops at once. Does not commit."""
    row = get_connection(org_id)
    record_event(org_id, "ldap.connection_deleted", actor_id=actor_id, subject=row.server_uri)
    db.session.delete(row)


def settings_for(row: LdapConnection, override: ConnectionInput | None = None) -> DirectorySettings:
    """The directory settings of a saved row, optionally with unsaved edits on top
    (a blank password in the edits keeps the stored one)."""
    source = override or row
    password = (override.bind_password if override else None) or _stored_password(row)
    return DirectorySettings(
        server_uri=source.server_uri,
        bind_dn=source.bind_dn,
        bind_password=password,
        search_base=source.search_base,
        search_filter=source.search_filter,
        email_attribute=source.email_attribute,
        given_name_attribute=source.given_name_attribute,
        family_name_attribute=source.family_name_attribute,
        use_tls=source.use_tls,
        ca_cert=source.ca_cert or None,
        connect_timeout=float(current_app.config.get("LDAP_CONNECT_TIMEOUT", 5)),
        read_timeout=float(current_app.config.get("LDAP_READ_TIMEOUT", 10)),
        deadline=float(current_app.config.get("OUTBOUND_DEADLINE", 15)),
    )


def _stored_password(row: LdapConnection | None) -> str:
    """The unsealed bind password; empty when none is stored or it no longer opens
    (key rotated, row tampered), which the service bind then reports."""
    if row is None or not row.bind_password_sealed:
        return ""
    try:
        return unseal(row.bind_password_sealed, row.id)
    except SecretUnreadable:
        return ""


def test_connection(org_id: uuid.UUID, edits: ConnectionInput | None = None) -> TestResult:
    """Service bind plus a small sample search (docs/ldap.md), with the saved settings
    or with unsaved ``edits`` on top of them. Failures are results, not errors."""
    row = connection_for(org_id)
    if row is None and edits is None:
        raise NotFoundError(
            "This organization has no LDAP connection yet; save or send the settings to test."
        )
    if edits is not None:
        try:
            edits = validate(edits, has_stored_password=bool(row and row.bind_password_sealed))
        except ServiceError as exc:
            if exc.field != "search_filter":
                raise
            return TestResult(False, exc.message, reason="filter_invalid")
    settings = settings_for(row, edits)
    try:
        with directory.as_service(settings) as conn:
            entries = directory.search(
                conn,
                settings,
                sample_filter(settings.search_filter),
                [settings.email_attribute],
                SAMPLE_SIZE,
            )
    except DirectoryError as exc:
        return TestResult(False, exc.message, reason=exc.reason)
    noun = "entry" if len(entries) == 1 else "entries"
    more = " (the sample stops there)" if len(entries) >= SAMPLE_SIZE else ""
    return TestResult(
        True,
        f"Connected as the service account and found {len(entries)} "
        f"sample {noun} with the search filter{more}.",
        len(entries),
    )
