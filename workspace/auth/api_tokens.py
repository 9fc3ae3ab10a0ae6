"""Personal access tokens (``ws_...``) for the JSON API, one org each."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, select

from workspace.auth.models import ApiToken
from workspace.core.events import record_event
from workspace.core.models import Account, Org
from workspace.extensions import db
from workspace.security import tokens
from workspace.types import utcnow

PREFIX = "ws_"


def create_token(
    account: Account, org: Org, name: str, *, actor_id: uuid.UUID | None = None
) -> tuple[ApiToken, str]:
    """A new token for ``account``; the raw value is returned here and never again.
    ``actor_id`` is who made it when that is someone else (an admin, for an agent)."""
    raw = tokens.generate(PREFIX)
    row = ApiToken(
        account_id=account.id,
        org_id=org.id,
        name=name.strip() or "API token",
        prefix=tokens.display_prefix(raw),
        token_hash=tokens.digest(raw),
    )
    db.session.add(row)
    record_event(
        org.id,
        "api_token.created",
        actor_id=actor_id or account.id,
        subject=row.name,
        for_account=account.email,
    )
    db.session.flush()
    return row, raw


def authenticate(raw: str) -> ApiToken | None:
    """The live token for a raw bearer value, or None. Touches ``last_used_at``
    at most once a minute."""
    if not raw.startswith(PREFIX):
        return None
    row = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == tokens.digest(raw)))
    if row is None or row.revoked_at is not None:
        return None
    tokens.touch(row, "a token's last-used touch is kept on reads and refused requests")
    return row


def _live(account_id: uuid.UUID, org_id: uuid.UUID) -> Select[tuple[ApiToken]]:
    """The account's unrevoked tokens in the org, newest first."""
    return (
        select(ApiToken)
        .where(
            ApiToken.account_id == account_id,
            ApiToken.org_id == org_id,
            ApiToken.revoked_at.is_(None),
        )
        .order_by(ApiToken.created_at.desc())
    )


def list_tokens(account_id: uuid.UUID, org_id: uuid.UUID) -> list[ApiToken]:
    return list(db.session.scalars(_live(account_id, org_id)))


def newest_token(account_id: uuid.UUID, org_id: uuid.UUID) -> ApiToken | None:
    return db.session.scalar(_live(account_id, org_id).limit(1))


def revoke_token(
    account_id: uuid.UUID,
    org_id: uuid.UUID,
    token_id: uuid.UUID,
    *,
    actor_id: uuid.UUID | None = None,
) -> bool:
    """Revoke one of ``account_id``'s tokens; ``actor_id`` is who did it when that is
    someone else (an admin rotating an agent's token)."""
    row = db.session.get(ApiToken, token_id)
    if row is None or row.account_id != account_id or row.org_id != org_id or row.revoked_at:
        return False
    row.revoked_at = utcnow()
    record_event(org_id, "api_token.revoked", actor_id=actor_id or account_id, subject=row.name)
    db.session.flush()
    return True
