"""The admin's search filter: checked when saved, filled in at sign-in (RFC 4515)."""

from __future__ import annotations

import re

from ldap3.core.exceptions import LDAPInvalidFilterError
from ldap3.operation.search import parse_filter
from ldap3.utils.conv import escape_filter_chars

PLACEHOLDER = "{username}"
#: RFC 4512 §1.4: an attribute is a descriptor (keystring) or a numeric OID.
_ATTRIBUTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$")


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
