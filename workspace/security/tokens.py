"""Bearer secrets: generated with a readable prefix, stored as SHA-256, compared in
constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any

from workspace.transaction import commit_early
from workspace.types import utcnow

# Callers make many requests a second; "last used" needs no finer grain, and a
# write per request would cost every API call a commit.
TOUCH_EVERY = timedelta(minutes=1)


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


def due_for_touch(last_used_at: datetime | None, now: datetime) -> bool:
    """Whether a token's "last used" time is stale enough to be written again."""
    return last_used_at is None or now - last_used_at > TOUCH_EVERY


def touch(row: Any, why: str) -> None:
    """Write the token row's ``last_used_at`` when it is due, committed on its own so
    that the touch is kept whatever the request does and holds no lock while it works;
    ``why`` is the commit's reason."""
    now = utcnow()
    if due_for_touch(row.last_used_at, now):
        row.last_used_at = now
        commit_early(why)
