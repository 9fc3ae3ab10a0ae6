"""LDAP filters and DNs: the admin's search filter, checked when saved and filled in at
sign-in, the searches group sync makes (RFC 4515), and DNs compared as names (RFC 4514)."""

from __future__ import annotations

import re
from string import hexdigits

from ldap3.core import exceptions as ldap_exc
from ldap3.core.exceptions import LDAPInvalidFilterError
from ldap3.operation.search import parse_filter
from ldap3.utils.conv import escape_filter_chars
from ldap3.utils.dn import parse_dn

PLACEHOLDER = "{username}"
#: RFC 4512 §1.4: an attribute is a descriptor (keystring) or a numeric OID.
_ATTRIBUTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$")
#: LDAP_MATCHING_RULE_IN_CHAIN: AD walks nested membership server-side.
IN_CHAIN = "1.2.840.113556.1.4.1941"

DnKey = tuple[tuple[tuple[str, str], ...], ...]


class InvalidFilter(ValueError):
    """The filter cannot be used; the message says what to fix."""


def check_filter(template: str) -> None:
    """Raise :class:`InvalidFilter` unless the template holds ``{username}`` and is a
    well-formed RFC 4515 §3 filter once it is filled in."""
    if PLACEHOLDER not in template:
        raise InvalidFilter("The search filter must contain {username}, e.g. (uid={username}).")
    try:
        parse_filter(
            fill_filter(template, "sample"),
            None,
            auto_escape=False,
            auto_encode=False,
            validator=None,
            check_names=False,
        )
    except LDAPInvalidFilterError as exc:
        raise InvalidFilter(
            f"The search filter is not a valid LDAP filter ({exc}): check that every "
            "parenthesis is closed and each condition looks like (attribute=value)."
        ) from exc


def fill_filter(template: str, username: str) -> str:
    """The filter with ``{username}`` replaced by the escaped username.

    RFC 4515 §3: ``*``, ``(``, ``)``, ``\\`` and NUL in an assertion value are written
    as ``\\XX``, so a username can only ever be compared for equality, never widen
    or restructure the filter.
    """
    return template.replace(PLACEHOLDER, escape_filter_chars(username))


def sample_filter(template: str) -> str:
    """The filter with ``{username}`` as a wildcard: the test connection's sample."""
    return template.replace(PLACEHOLDER, "*")


def is_attribute_name(name: str) -> bool:
    return bool(_ATTRIBUTE.match(name))


# -- group searches and DNs -------------------------------------------------------------


def _unescape(value: str) -> str:
    """An RDN value without RFC 4514 escapes (``\\,`` and ``\\2C`` are the same comma)."""
    out, i = bytearray(), 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value):
            pair = value[i + 1 : i + 3]
            if len(pair) == 2 and all(c in hexdigits for c in pair):
                out.append(int(pair, 16))
                i += 3
                continue
            out += value[i + 1].encode()
            i += 2
            continue
        out += value[i].encode()
        i += 1
    return out.decode("utf-8", errors="replace")


def dn_key(dn: str) -> DnKey | None:
    """A DN in a form two spellings of the same name share; None when it is not a DN."""
    try:
        parts = parse_dn(dn.strip(), escape=False, strip=True)
    except (ldap_exc.LDAPInvalidDnError, ValueError, IndexError):
        return None
    if not parts:
        return None
    rdns: list[tuple[tuple[str, str], ...]] = []
    current: list[tuple[str, str]] = []
    for attr, value, separator in parts:
        current.append((attr.strip().casefold(), " ".join(_unescape(value).split()).casefold()))
        if separator != "+":
            rdns.append(tuple(sorted(current)))
            current = []
    return tuple(rdns)


def in_chain_filter(person_dn: str) -> str:
    """AD: every group the person is in, directly or through nested groups, in one
    search (the DN escaped by RFC 4515, so a ``*`` or ``)`` in a name stays literal)."""
    return f"(&(objectClass=group)(member:{IN_CHAIN}:={escape_filter_chars(person_dn)}))"


def member_filter(dns: list[str]) -> str:
    """groupOfNames / groupOfUniqueNames whose member is any of these DNs."""
    terms = "".join(
        f"(member={escape_filter_chars(dn)})(uniqueMember={escape_filter_chars(dn)})" for dn in dns
    )
    return f"(|{terms})"


def posix_filter(uid: str) -> str:
    return f"(&(objectClass=posixGroup)(memberUid={escape_filter_chars(uid)}))"
