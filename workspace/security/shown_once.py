"""A new secret shown once on the page its create redirects to (docs/security.md#shown-once).

A create that answered with a page of its own left the browser on a POST: a reload
posted it again and made another token, and for a rotation (the SCIM token, a webhook's
secret) replaced the value the admin had just pasted into the IdP. The create keeps the
new value here instead and redirects; the page it lands on takes it out, so it is shown
on that one answer and a reload shows the page without it.

The value rides in the session cookie sealed (AES-GCM, ``security.crypto``) with the
kind as associated data, for five minutes at most: the cookie is signed but not
encrypted, and a secret must never sit in it readable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flask import session

from workspace.security.crypto import SecretUnreadable, seal, unseal

_KEY = "shown_once"
#: Long enough for a slow redirect, short enough that a stale cookie holds nothing.
TTL_SECONDS = 300


@dataclass(frozen=True)
class Shown:
    value: str
    #: What the value belongs to (an agent's or an endpoint's id); not secret.
    about: str


def keep(kind: str, value: str, about: object = "") -> None:
    """Hold ``value`` for the next page that takes ``kind``; replaces any held one."""
    session[_KEY] = {
        "kind": kind,
        "about": str(about),
        "sealed": seal(value, _aad(kind)),
        "at": time.time(),
    }


def take(kind: str, about: object = None) -> Shown | None:
    """The value kept for ``kind`` (and ``about``, when given), once; None when there
    is none, it is another's, or it is stale."""
    held = session.get(_KEY)
    if not isinstance(held, dict) or held.get("kind") != kind:
        return None
    if about is not None and held.get("about") != str(about):
        return None
    session.pop(_KEY, None)
    if time.time() - float(held.get("at", 0)) > TTL_SECONDS:
        return None
    try:
        return Shown(unseal(str(held.get("sealed", "")), _aad(kind)), str(held.get("about")))
    except (SecretUnreadable, ValueError):
        return None


def _aad(kind: str) -> str:
    return f"shown-once:{kind}"
