"""Canonical domain names (docs/domains.md), shared by every place that compares or
stores one: verified domains, SSO connections, directory emails and account emails.
It lives in core because accounts (core) and the identity sources (above it) must
compare domains the same way.

The rules: drop a leading http:// or https://, drop a trailing slash, keep only the
part after the @ of an email address. Ours on top: lowercase, drop the root's
trailing dot, IDNA (UTS #46) for non-ASCII names (which also maps full-width forms),
and refuse anything that is not a plain host name of at least two labels (RFC 1035
§2.3.4 lengths).
"""

from __future__ import annotations

import ipaddress
import re

import idna

from workspace.errors import ServiceError

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://")


def normalize_domain(raw: str | None, *, field: str = "domain") -> str:
    """The canonical form of a domain, or a 400 on ``field`` saying what is wrong."""

    def _bad(reason: str) -> ServiceError:
        return ServiceError(reason, field=field)

    value = (raw or "").strip().lower()
    if not value:
        raise _bad("Enter a domain such as example.com.")
    if value.startswith(("http://", "https://")):
        # A URL pasted from the address bar: its host is the domain; the path, query
        # and fragment after it are not (a bare "example.com/page" is still refused).
        value = re.split(r"[/?#]", value.split("://", 1)[1], maxsplit=1)[0]
    elif _SCHEME.match(value):
        raise _bad(
            "Enter a bare domain such as example.com; only http:// and https:// "
            "prefixes are removed for you."
        )
    if "@" in value:
        value = value.rsplit("@", 1)[1]
    if value.endswith("/"):
        value = value[:-1]
    if value.endswith("."):
        value = value[:-1]
    if not value:
        raise _bad("Enter a domain such as example.com.")
    if any(ch.isspace() for ch in value):
        raise _bad("A domain cannot contain spaces.")
    if "/" in value or "?" in value or "#" in value:
        raise _bad("Enter only the domain, without a path: example.com, not example.com/page.")
    if ":" in value and not _looks_like_ip(value):
        raise _bad("Enter the domain without a port number.")
    if _looks_like_ip(value):
        raise _bad("An IP address is not a domain; enter the email domain, such as example.com.")
    if len(value) > 253:
        raise _bad("A domain name is at most 253 characters long.")
    try:
        ascii_name = idna.encode(value, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError) as exc:
        # A long value is refused without being echoed back in full.
        named = repr(value) if len(value) <= 80 else "This"
        raise _bad(f"{named} is not a valid domain name ({exc}).") from exc
    if len(ascii_name) > 253:
        raise _bad("A domain name is at most 253 characters long.")
    labels = ascii_name.split(".")
    if len(labels) < 2:
        raise _bad("A domain needs at least one dot, such as example.com.")
    for label in labels:
        if not _LABEL.match(label):
            raise _bad(
                f"{label!r} is not a valid part of a domain name: use letters, digits "
                "and inner hyphens, at most 63 characters per part."
            )
    if labels[-1].isdigit():
        raise _bad("The last part of a domain cannot be a number.")
    return ascii_name


def _looks_like_ip(value: str) -> bool:
    candidate = value.strip("[]")
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return False
    return True


def email_domain(email: str) -> str:
    """The domain part of an email address, normalized the same way as domains."""
    return normalize_domain(email.rsplit("@", 1)[-1])
