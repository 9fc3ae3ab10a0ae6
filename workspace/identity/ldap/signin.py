"""Directory sign-in: the steps of docs/ldap.md#sign-in-steps, in order.

The caller (the public view) records the refusal and answers the browser or client;
this module takes plain values and never reads the request.
"""

from __future__ import annotations

from dataclasses import dataclass

from workspace.auth.login import provision_member
from workspace.auth.signin import SignInRefused
from workspace.core.accounts import MembershipEnded
from workspace.core.emails import email_domain
from workspace.core.models import Account, Org
from workspace.core.models.accounts import NAME_SIZE
from workspace.core.models.domains import verified_domain_names
from workspace.core.orgs import find_org
from workspace.errors import ServiceError
from workspace.identity.ldap import directory
from workspace.identity.ldap.account_states import (
    MESSAGES,
    STATE_ATTRIBUTES,
    ad_reason,
    entry_state,
)
from workspace.identity.ldap.directory import DirectoryError
from workspace.identity.ldap.filters import fill_filter
from workspace.identity.ldap.groups import sync_directory_groups
from workspace.identity.ldap.models import connection_for
from workspace.identity.ldap.service import settings_for
from workspace.inputs import fit_external

#: One message for a wrong password and an unknown user: a stranger must not be
#: able to tell which usernames exist.
BAD_CREDENTIALS = "The directory did not accept that username and password."
MAX_USERNAME = 256
#: Longer than any org slug or id a person could type.
MAX_ORG_REF = 100
#: An account's display name column.


def refused(reason: str, message: str, status: int = 401, **audit: str | bool) -> SignInRefused:
    """A refused directory sign-in: ``reason`` (and ``audit``) go into the org's audit
    log as ``ldap.login_failed``, ``message`` to the person."""
    return SignInRefused(message, reason=reason, status=status, method="ldap", audit=audit)


def attributed(exc: SignInRefused, org: Org, username: str, ip: str | None) -> SignInRefused:
    """The refusal as the org records it: who tried (printable only: a NUL cannot be
    stored in PostgreSQL text or JSON) and from where; never the password."""
    shown = "".join(
        ch if ch.isprintable() else "\N{REPLACEMENT CHARACTER}" for ch in username[:MAX_USERNAME]
    )
    exc.org_id, exc.subject = org.id, shown or None
    exc.audit = {"ip": ip, **exc.audit}
    return exc


@dataclass(frozen=True)
class DirectoryPerson:
    dn: str
    email: str
    name: str | None
    #: The given and family name attributes as the directory holds them
    #: (docs/scim.md#names).
    given_name: str | None = None
    family_name: str | None = None


def find_signin_org(ref: str | None) -> Org | None:
    """The org a person typed (slug or id); None for anything that cannot be one,
    including control characters PostgreSQL would refuse to compare."""
    ref = (ref or "").strip()
    if not ref or len(ref) > MAX_ORG_REF or not ref.isprintable():
        return None
    return find_org(ref)


def check_directory(org: Org, username: str, password: str) -> DirectoryPerson:
    """Rules 1-3: service bind, search, rebind as the entry. Raises SignInRefused."""
    row = connection_for(org.id)
    if row is None:
        raise refused("not_configured", f"{org.name} does not offer directory sign-in.", 404)
    if not username or len(username) > MAX_USERNAME:
        raise refused(
            "bad_username",
            f"Enter your directory username (at most {MAX_USERNAME} characters).",
            400,
        )
    # Active Directory treats a simple bind with an empty password as an anonymous
    # bind that succeeds (RFC 4513 §5.1.2): refuse before anything is sent.
    if not password:
        raise refused("empty_password", "Enter your password.", 400)
    settings = settings_for(row)
    try:
        conn = directory.service_connection(settings)  # rule 1
    except DirectoryError as exc:
        raise _unavailable(exc) from None
    try:
        entries = directory.search(  # rule 2
            conn,
            settings,
            fill_filter(settings.search_filter, username),
            [
                settings.email_attribute,
                settings.given_name_attribute,
                settings.family_name_attribute,
                *STATE_ATTRIBUTES,
            ],
            size_limit=2,
        )
        if not entries:
            raise refused("unknown_user", BAD_CREDENTIALS)
        if len(entries) > 1:
            raise refused(
                "ambiguous_user",
                "More than one directory entry matches "
                "that username, so none is trusted. Ask your admin to make "
                "the LDAP search filter match one person.",
            )
        entry = entries[0]
        _check_password(conn, settings, entry, password)  # rule 3
    except DirectoryError as exc:
        raise _unavailable(exc) from None
    finally:
        directory.close(conn)
    email = entry.first(settings.email_attribute)
    if not email or "@" not in email:
        raise refused(
            "no_email",
            "Your directory entry has no email address (attribute "
            f"{settings.email_attribute}). Ask your admin to add one.",
            403,
        )
    given = fit_external((entry.first(settings.given_name_attribute) or "").strip(), NAME_SIZE)
    family = fit_external((entry.first(settings.family_name_attribute) or "").strip(), NAME_SIZE)
    name = " ".join(filter(None, [given, family]))
    return DirectoryPerson(
        entry.dn,
        email.lower(),
        fit_external(name, NAME_SIZE) or None,
        given or None,
        family or None,
    )


def _check_password(
    conn, settings: directory.DirectorySettings, entry: directory.Entry, password: str
) -> None:
    """Rule 3 and the account's state (docs/ldap.md#account-states). The state is
    told to the person only when their password was right, or when AD itself said so
    in its bind diagnostic (AD gives 532/533/701/773 only for the right password; 775,
    locked, for any). Otherwise it is the usual "wrong username or password", so a
    guess cannot learn that an account exists and is disabled; the audit row still
    names the state, with ``password_accepted: false``."""
    state = entry_state(entry.first)
    bound = directory.rebind(conn, settings, entry.dn, password)
    if bound.ok:
        if state is not None:
            raise refused(state, MESSAGES[state], 403, password_accepted=True)
        return
    if bound.needs_tls:
        raise DirectoryError("tls_required", detail=directory.TLS_REQUIRED_CODES[bound.code or 0])
    told = ad_reason(bound.diagnostic)
    if told in MESSAGES:
        raise refused(told, MESSAGES[told], 403, ad_data=True)
    if state is not None:
        raise refused(state, BAD_CREDENTIALS, password_accepted=False)
    raise refused("invalid_credentials", BAD_CREDENTIALS)


def _unavailable(exc: DirectoryError) -> SignInRefused:
    if exc.reason in ("unreachable", "tls_timeout"):  # likely to pass: try again later
        return refused(
            exc.reason,
            "The directory server cannot be reached right now. "
            "Try again later, or ask your admin to check the LDAP settings.",
            503,
        )
    return refused(
        exc.reason,
        "Directory sign-in is not working for this organization "
        "(the LDAP settings need attention). Ask your admin to run the "
        "connection test in Settings → LDAP.",
        502,
    )


def _domain(email: str) -> str:
    """The email's domain in the form verified domains are stored in (UTS #46), so
    straße.de is compared as xn--strae-oqa.de and never as strasse.de."""
    try:
        return email_domain(email)
    except ServiceError:
        # Not a domain at all: shown as given, and matching no verified domain.
        return email.rsplit("@", 1)[1].strip().lower()


def directory_login(org: Org, username: str, password: str) -> tuple[Account, bool]:
    """All four rules: returns (account, account_was_created); the caller completes the
    login. The directory is trusted only for emails on the org's verified domains
    (docs/security.md), else one org's admin could sign in as another org's people."""
    person = check_directory(org, username, password)
    domain = _domain(person.email)
    if domain not in verified_domain_names(org.id):
        raise refused(
            "domain_not_verified",
            f"Your directory email is on {domain}, which {org.name} has not verified. An "
            f"admin must verify {domain} in Settings → Domains before directory sign-in "
            "works for it.",
            403,
        )
    try:
        account, _member, created = provision_member(
            org,
            person.email,
            person.name,
            via="ldap",
            given_name=person.given_name,
            family_name=person.family_name,
        )
    except SignInRefused:
        raise  # a link its holder confirms first
    except MembershipEnded as exc:
        raise refused("deactivated", exc.message, exc.status) from None
    except ServiceError as exc:
        raise refused("account_refused", exc.message, exc.status) from None
    sync_directory_groups(org, account, person.dn, connection_for(org.id), username)
    return account, created
