"""The limits of asking for a chart (docs/security.md#limits, docs/ai.md#limits): asks
are rate limited per member and per org (``ASK_RATE_PER_MEMBER``, ``ASK_RATE_PER_ORG``,
in the rate limiter's storage); at most ``ASK_MAX_IN_FLIGHT_PER_ORG`` model calls of one
org are under way at once; the credits of a model call are reserved before it
(:mod:`workspace.agents.credits`) by :func:`reserve`."""

from __future__ import annotations

import uuid
from datetime import datetime

from flask import current_app
from limits import parse as parse_rate

from workspace.agents import credits
from workspace.agents.models import AiRun, AiSettings
from workspace.agents.spec import DEFAULT
from workspace.core.models import Account
from workspace.errors import ServiceError
from workspace.extensions import db, limiter
from workspace.transaction import commit_early

#: Defaults of the app settings of the same names (docs/security.md#limits).
ASK_RATE_PER_MEMBER = "10 per minute"
ASK_RATE_PER_ORG = "60 per minute"
ASK_MAX_IN_FLIGHT_PER_ORG = 2
IN_FLIGHT_MESSAGE = (
    "Too many questions are being answered for this organization right now; try again in a moment."
)


class TooManyAsks(ServiceError):
    """An ask refused by a rate limit or the in-flight bound: try again shortly."""

    status = 429


def check_rate(org_id: uuid.UUID, account_id: uuid.UUID) -> None:
    """Count one ask against the member's and the org's rate; over either: 429.

    Counted in the rate limiter's storage (``RATELIMIT_STORAGE_URI``, shared by every
    worker when it is Redis or Memcached); off when the limiter is (``RATELIMIT_ENABLED``)."""
    if not (limiter.enabled and limiter.initialized):
        return
    config = current_app.config
    member_rate = config.get("ASK_RATE_PER_MEMBER", ASK_RATE_PER_MEMBER)
    org_rate = config.get("ASK_RATE_PER_ORG", ASK_RATE_PER_ORG)
    checks = [
        (
            parse_rate(member_rate),
            ("ask-member", str(org_id), str(account_id)),
            f"You are asking too often (at most {member_rate}); try again in a moment.",
        ),
        (
            parse_rate(org_rate),
            ("ask-org", str(org_id)),
            f"This organization is asking too often (at most {org_rate}); try again in a moment.",
        ),
    ]
    strategy = limiter.limiter
    for item, keys, message in checks:
        if not strategy.test(item, *keys):
            raise TooManyAsks(message)
    for item, keys, _message in checks:
        strategy.hit(item, *keys)


def reserve(
    row: AiSettings, text: str, org_id: uuid.UUID, account: Account, now: datetime, reserve: int
) -> AiRun | None:
    """Write the ask's run as ``running`` with its credits reserved, and commit it so
    concurrent asks (in any worker) see it; None when the pool is used up. Under the
    org's lock, so two asks cannot both take the last credits or the last slot."""
    credits.lock_pool(org_id)
    left = credits.pool_limit(org_id) - credits.used(org_id, now)
    if left <= 0:
        return None
    flying = int(current_app.config.get("ASK_MAX_IN_FLIGHT_PER_ORG", ASK_MAX_IN_FLIGHT_PER_ORG))
    if credits.in_flight(org_id, now) >= flying:
        raise TooManyAsks(IN_FLIGHT_MESSAGE)
    run = AiRun(
        org_id=org_id,
        account_id=account.id,
        actor_kind=account.kind,
        prompt=text,
        model=row.model,
        outcome=credits.RUNNING,
        metric=DEFAULT.metric,
        dimension=DEFAULT.dimension,
        title=DEFAULT.title,
        credits_charged=min(reserve, left),
        created_at=now,
    )
    db.session.add(run)
    db.session.flush()
    commit_early("the reservation must be visible to concurrent asks")
    return run
