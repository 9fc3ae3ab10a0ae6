"""Bearer secrets: generated with a readable prefix, stored as SHA-256, compared in
constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def generate(prefix: str) -> str:
    """A new raw token such as ``ws_3kf...``; 256 bits of randomness."""
    return prefix + secrets.token_urlsafe(32)


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def matches(raw: str, stored_digest: str) -> bool:
    return hmac.compare_digest(digest(raw), stored_digest)


def display_prefix(raw: str) -> str:
    """The non-secret start of a token, enough to recognise it in a list."""
    return raw[:10]
