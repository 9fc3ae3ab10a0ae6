"""The org's SCIM bearer token (docs/scim.md#token-lifecycle): generate, revoke, read metadata,
and authenticate a request. Stored as SHA-256, compared in constant time."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from workspace.core.events import record_event
from workspace.extensions import db
from workspace.scim.models import ScimToken
from workspace.security import tokens
from workspace.transaction import commit_early
from workspace.types import utcnow

PREFIX = "scim_"


@dataclass(frozen=True)
class TokenInfo:
    configured: bool
    prefix: str | None = None
    last_used_at: datetime | None = None
    created_at: datetime | None = None


def _row(org_id: uuid.UUID) -> ScimToken | None:
    return db.session.scalar(select(ScimToken).where(ScimToken.org_id == org_id))


def token_info(org_id: uuid.UUID) -> TokenInfo:
    row = _row(org_id)
    if row is None:
        return TokenInfo(configured=False)
    return TokenInfo(True, row.prefix, row.last_used_at, row.created_at)


def generate_token(org_id: uuid.UUID, actor_id: uuid.UUID | None) -> tuple[TokenInfo, str]:
    """A new token for the org; any previous one stops working in the same transaction.
    Returns the metadata and the raw value, which is never available again."""
    raw = tokens.generate(PREFIX)
    row = _row(org_id)
    if row is None:
        row = ScimToken(org_id=org_id)
        db.session.add(row)
    row.prefix = tokens.display_prefix(raw)
    row.token_hash = tokens.digest(raw)
    row.created_by_id = actor_id
    row.created_at = utcnow()
    row.last_used_at = None
    record_event(org_id, "scim.token.generated", actor_id=actor_id, subject=row.prefix)
    db.session.flush()
    return token_info(org_id), raw


def revoke_token(org_id: uuid.UUID, actor_id: uuid.UUID | None) -> bool:
    """Cut the IdP off. Returns False when there was no token."""
    row = _row(org_id)
    if row is None:
        return False
    db.session.delete(row)
    record_event(org_id, "scim.token.revoked", actor_id=actor_id, subject=row.prefix)
    db.session.flush()
    return True


def authenticate(org_id: uuid.UUID, raw: str | None) -> ScimToken | None:
    """The org's token when ``raw`` is it, else None. A token only ever opens its
    own org: the lookup is by the org in the URL, never by the token."""
    if not raw or not raw.startswith(PREFIX):
        return None
    row = _row(org_id)
    if row is None or not tokens.matches(raw, row.token_hash):
        return None
    now = utcnow()
    if tokens.due_for_touch(row.last_used_at, now):
        # Committed on its own so that no lock on this row is held while the
        # request does its real work (concurrent provisioning must not queue here).
        row.last_used_at = now
        commit_early("a SCIM token's last-used touch must not hold a row lock for the request")
    return row
