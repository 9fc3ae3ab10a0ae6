"""The org's OAuth 2.0 client for SCIM (docs/scim.md#client-credentials): the client,
its secrets (at most two live, each with an expiry, for rotation), and the access
tokens the token endpoint issues. Every secret and token is stored as SHA-256 and
compared in constant time; the raw values exist only in the response that made them.
The token endpoint itself is Authlib's (:mod:`workspace.scim.oauth_server`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pydantic import Field
from sqlalchemy import delete, select

from workspace.core.events import record_event
from workspace.errors import ConflictError, NotFoundError
from workspace.extensions import db
from workspace.inputs import InputModel
from workspace.scim.models import ScimAccessToken, ScimOAuthClient, ScimOAuthSecret
from workspace.security import tokens
from workspace.types import utcnow

CLIENT_PREFIX = "scimc_"
SECRET_PREFIX = "scimcs_"
TOKEN_PREFIX = "scimat_"
#: About an hour, as Entra expects; it asks for a new token before this runs out.
ACCESS_TOKEN_LIFETIME = timedelta(hours=1)
#: Two: the one the IdP uses and the one replacing it.
MAX_LIVE_SECRETS = 2
MAX_SECRET_DAYS = 730


class SecretIn(InputModel):
    """A new client secret: how many days it works (1 to 730; 180 by default)."""

    expires_in_days: int = Field(default=180, ge=1, le=MAX_SECRET_DAYS)


@dataclass(frozen=True)
class SecretInfo:
    id: uuid.UUID
    prefix: str
    created_at: datetime
    expires_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def state(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if self.expires_at <= utcnow() else "live"


@dataclass(frozen=True)
class ClientInfo:
    configured: bool
    client_id: str | None = None
    created_at: datetime | None = None
    last_used_at: datetime | None = None
    secrets: list[SecretInfo] = field(default_factory=list)

    @property
    def live_secrets(self) -> int:
        return sum(1 for s in self.secrets if s.state == "live")


def _client(org_id: uuid.UUID) -> ScimOAuthClient | None:
    return db.session.scalar(select(ScimOAuthClient).where(ScimOAuthClient.org_id == org_id))


def _secret_info(row: ScimOAuthSecret) -> SecretInfo:
    return SecretInfo(
        row.id, row.prefix, row.created_at, row.expires_at, row.last_used_at, row.revoked_at
    )


def created_by(org_id: uuid.UUID) -> uuid.UUID | None:
    """Who created the org's client: access tokens speak with their authority."""
    row = _client(org_id)
    return row.created_by_id if row is not None else None


def client_info(org_id: uuid.UUID) -> ClientInfo:
    row = _client(org_id)
    if row is None:
        return ClientInfo(configured=False)
    secrets = db.session.scalars(
        select(ScimOAuthSecret)
        .where(ScimOAuthSecret.client_pk == row.id)
        .order_by(ScimOAuthSecret.created_at.desc())
    ).all()
    return ClientInfo(
        True, row.client_id, row.created_at, row.last_used_at, [_secret_info(s) for s in secrets]
    )


def create_client(org_id: uuid.UUID, actor_id: uuid.UUID | None) -> ClientInfo:
    """The org's client (one per org; creating it again is a 409). It has no secret
    yet: :func:`add_secret` makes one."""
    if _client(org_id) is not None:
        raise ConflictError("This organization already has a SCIM OAuth client.")
    row = ScimOAuthClient(
        org_id=org_id, client_id=tokens.generate(CLIENT_PREFIX)[:40], created_by_id=actor_id
    )
    db.session.add(row)
    record_event(org_id, "scim.oauth_client.created", actor_id=actor_id, subject=row.client_id)
    db.session.flush()
    return client_info(org_id)


def delete_client(org_id: uuid.UUID, actor_id: uuid.UUID | None, reason: str = "") -> bool:
    """Remove the client, its secrets and every token it was issued (cascade)."""
    row = _client(org_id)
    if row is None:
        return False
    db.session.execute(
        delete(ScimAccessToken).where(
            ScimAccessToken.secret_id.in_(
                select(ScimOAuthSecret.id).where(ScimOAuthSecret.client_pk == row.id)
            )
        )
    )
    db.session.execute(delete(ScimOAuthSecret).where(ScimOAuthSecret.client_pk == row.id))
    db.session.delete(row)
    extra = {"reason": reason} if reason else {}
    record_event(
        org_id, "scim.oauth_client.deleted", actor_id=actor_id, subject=row.client_id, **extra
    )
    db.session.flush()
    return True


def _live(client_pk: uuid.UUID, now: datetime):
    return select(ScimOAuthSecret).where(
        ScimOAuthSecret.client_pk == client_pk,
        ScimOAuthSecret.revoked_at.is_(None),
        ScimOAuthSecret.expires_at > now,
    )


def add_secret(
    org_id: uuid.UUID, actor_id: uuid.UUID | None, form: SecretIn
) -> tuple[SecretInfo, str]:
    """A new secret, returned raw once. Refused (409) while two are live: revoke
    the one the IdP no longer uses first."""
    row = _client(org_id)
    if row is None:
        raise NotFoundError("Create the SCIM OAuth client first.")
    now = utcnow()
    if len(db.session.scalars(_live(row.id, now)).all()) >= MAX_LIVE_SECRETS:
        raise ConflictError(
            "The client already has two live secrets. Revoke the one your identity "
            "provider no longer uses, then add a new one.",
            field="expires_in_days",
        )
    raw = tokens.generate(SECRET_PREFIX)
    secret = ScimOAuthSecret(
        client_pk=row.id,
        prefix=tokens.display_prefix(raw),
        secret_hash=tokens.digest(raw),
        expires_at=now + timedelta(days=form.expires_in_days),
        created_by_id=actor_id,
        created_at=now,
    )
    db.session.add(secret)
    db.session.flush()
    record_event(
        org_id,
        "scim.oauth_secret.added",
        actor_id=actor_id,
        subject=secret.prefix,
        expires_at=secret.expires_at.isoformat(),
    )
    return _secret_info(secret), raw


def revoke_secret(org_id: uuid.UUID, secret_id: uuid.UUID, actor_id: uuid.UUID | None) -> None:
    """The secret stops working, and so does every access token issued with it."""
    row = _client(org_id)
    secret = None
    if row is not None:
        secret = db.session.scalar(
            select(ScimOAuthSecret).where(
                ScimOAuthSecret.id == secret_id, ScimOAuthSecret.client_pk == row.id
            )
        )
    if secret is None or secret.revoked_at is not None:
        raise NotFoundError("No such live secret for this organization's SCIM client.")
    secret.revoked_at = utcnow()
    db.session.execute(delete(ScimAccessToken).where(ScimAccessToken.secret_id == secret.id))
    record_event(org_id, "scim.oauth_secret.revoked", actor_id=actor_id, subject=secret.prefix)
    db.session.flush()


# -- used by the token endpoint and the SCIM endpoints --------------------------------


def find_client(org_id: uuid.UUID, client_id: str) -> ScimOAuthClient | None:
    """The org's client when ``client_id`` names it: a client only ever opens its own org."""
    row = _client(org_id)
    return row if row is not None and row.client_id == client_id else None


def match_secret(client: ScimOAuthClient, raw: str | None) -> ScimOAuthSecret | None:
    """The live secret ``raw`` is, else None. Every live secret is compared (two at
    most), in constant time each."""
    if not raw or not raw.startswith(SECRET_PREFIX):
        return None
    found = None
    for secret in db.session.scalars(_live(client.id, utcnow())).all():
        if tokens.matches(raw, secret.secret_hash):
            found = secret
    return found


def issue_token(client: ScimOAuthClient, secret: ScimOAuthSecret, raw: str, expires_in: int):
    """Store the access token Authlib generated (its hash), and note the use."""
    now = utcnow()
    db.session.add(
        ScimAccessToken(
            secret_id=secret.id,
            org_id=client.org_id,
            token_hash=tokens.digest(raw),
            expires_at=now + timedelta(seconds=expires_in),
            created_at=now,
        )
    )
    client.last_used_at = secret.last_used_at = now
    record_event(
        client.org_id, "scim.oauth_token.issued", subject=client.client_id, secret=secret.prefix
    )
    # Expired tokens of this secret go as new ones come, so the table stays small.
    db.session.execute(
        delete(ScimAccessToken).where(
            ScimAccessToken.secret_id == secret.id, ScimAccessToken.expires_at <= now
        )
    )
    db.session.flush()


def authenticate_token(org_id: uuid.UUID, raw: str | None) -> tuple[str, uuid.UUID | None] | None:
    """The client id and its creator when ``raw`` is a live access token of this org,
    else None (unknown, expired, another org's, or its secret or client revoked)."""
    if not raw or not raw.startswith(TOKEN_PREFIX):
        return None
    row = db.session.execute(
        select(ScimAccessToken.expires_at, ScimOAuthClient.client_id, ScimOAuthClient.created_by_id)
        .join(ScimOAuthSecret, ScimOAuthSecret.id == ScimAccessToken.secret_id)
        .join(ScimOAuthClient, ScimOAuthClient.id == ScimOAuthSecret.client_pk)
        .where(
            ScimAccessToken.token_hash == tokens.digest(raw),
            ScimAccessToken.org_id == org_id,
            ScimOAuthSecret.revoked_at.is_(None),
        )
    ).first()
    if row is None or row.expires_at <= utcnow():
        return None
    return row.client_id, row.created_by_id
