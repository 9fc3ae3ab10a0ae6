"""AI credits (docs/ai.md#ai-credits): a monthly pool per org, spent by model calls.

Pool: 500 credits per billable seat per calendar month in UTC. A billable seat is an
active human member; agents are members but not seats. Seats are counted at the
moment of asking, so adding a person raises this month's limit at once and removing
one lowers it. Used credits are the sum charged by this month's AI runs: the ledger
is the ``ai_runs`` table itself, so there is no counter to drift or reset.

Cost of one model call (:func:`cost`): 1 credit for the call plus 1 per started
1,000 tokens (prompt and completion together). A call that got no answer (timeout,
unreachable, provider error) costs nothing; the offline interpreter and the default
chart cost nothing.

Reservations (docs/security.md#limits): an ask that will call the model first writes
its run as ``running`` holding the most one ask may cost, under a per-org lock
(:func:`lock_pool`), and commits it so every worker sees it; after the call the run
is settled to the real cost, again under the lock, and never beyond what is left of
the pool. Concurrent asks therefore never spend more than the limit. A ``running``
run older than :func:`reservation_ttl` belongs to a request that died: it is neither
in flight nor charged.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import ColumnElement, func, or_, select

from workspace.agents.models import AiRun, AiSettings
from workspace.core.models import Account, AccountKind, OrgMember
from workspace.extensions import db
from workspace.transaction import lock_row

CREDITS_PER_SEAT = 500
CREDITS_PER_CALL = 1
TOKENS_PER_CREDIT = 1000
#: The outcome of a run whose model call is under way (its credits are a reservation).
RUNNING = "running"


def cost(total_tokens: int) -> int:
    """Credits charged for one answered model call."""
    return CREDITS_PER_CALL + math.ceil(max(total_tokens, 0) / TOKENS_PER_CREDIT)


def month_bounds(now: datetime) -> tuple[datetime, datetime]:
    """The first instant of ``now``'s calendar month (UTC) and of the next one."""
    now = now.astimezone(UTC)
    start = datetime(now.year, now.month, 1, tzinfo=UTC)
    nxt = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=UTC)
    return start, nxt


def billable_seats(org_id: uuid.UUID) -> int:
    return (
        db.session.scalar(
            select(func.count())
            .select_from(OrgMember)
            .join(Account, Account.id == OrgMember.account_id)
            .where(
                OrgMember.org_id == org_id,
                OrgMember.active.is_(True),
                Account.kind == AccountKind.PERSON,
            )
        )
        or 0
    )


def reservation_ttl() -> timedelta:
    """How long a ``running`` run counts: longer than any model call can last (the
    outbound deadline), so an older one is left over from a request that died."""
    config = current_app.config
    seconds = config.get("ASK_RESERVATION_TTL") or (
        max(config.get("OUTBOUND_DEADLINE") or 15, config.get("OUTBOUND_TIMEOUT") or 10) + 30
    )
    return timedelta(seconds=float(seconds))


def _live(now: datetime) -> ColumnElement[bool]:
    """Settled runs, and running ones that are not stale."""
    return or_(AiRun.outcome != RUNNING, AiRun.created_at >= now - reservation_ttl())


def used(org_id: uuid.UUID, now: datetime, *, besides: uuid.UUID | None = None) -> int:
    """Credits charged or reserved this month (without the run ``besides``)."""
    start, end = month_bounds(now)
    query = select(func.coalesce(func.sum(AiRun.credits_charged), 0)).where(
        AiRun.org_id == org_id, AiRun.created_at >= start, AiRun.created_at < end, _live(now)
    )
    if besides is not None:
        query = query.where(AiRun.id != besides)
    return int(db.session.scalar(query) or 0)


def pool_limit(org_id: uuid.UUID) -> int:
    return CREDITS_PER_SEAT * billable_seats(org_id)


def lock_pool(org_id: uuid.UUID) -> None:
    """Serialize reservations and settlements of one org until the transaction ends:
    the org's settings row held, so a second asker waits here and then reads what the
    first committed."""
    lock_row(AiSettings.org_id == org_id, AiSettings.model, AiSettings.updated_at)


def in_flight(org_id: uuid.UUID, now: datetime, *, besides: uuid.UUID | None = None) -> int:
    """Asks of this org whose model call is under way (stale reservations aside, and
    the run ``besides``)."""
    query = (
        select(func.count())
        .select_from(AiRun)
        .where(
            AiRun.org_id == org_id,
            AiRun.outcome == RUNNING,
            AiRun.created_at >= now - reservation_ttl(),
        )
    )
    if besides is not None:
        query = query.where(AiRun.id != besides)
    return db.session.scalar(query) or 0


def settle(run: AiRun, charge: int, now: datetime) -> int:
    """The credits to charge ``run`` for a call that cost ``charge``: its real cost,
    but never more than the pool has left besides this run. Takes the org's lock,
    which the request's commit releases."""
    lock_pool(run.org_id)
    left = pool_limit(run.org_id) - used(run.org_id, now, besides=run.id)
    return max(min(charge, left), 0)


def usage(org_id: uuid.UUID, now: datetime | None = None) -> dict[str, int | float]:
    """``{used, limit, remaining, percent}`` for the calendar month holding ``now``.
    ``percent`` is the share of the limit used, one decimal, at most 100."""
    now = now or datetime.now(UTC)
    spent = used(org_id, now)
    pool = pool_limit(org_id)
    percent = round(min(spent / pool, 1.0) * 100, 1) if pool else 100.0
    return {
        "used": spent,
        "limit": pool,
        "remaining": max(pool - spent, 0),
        "percent": percent,
    }


def exhausted(org_id: uuid.UUID, now: datetime | None = None) -> bool:
    return usage(org_id, now)["remaining"] <= 0


def recent_runs(org_id: uuid.UUID, limit: int = 20) -> list[tuple[AiRun, str | None]]:
    """The latest asks with who asked, newest first, for the AI settings page."""
    rows = db.session.execute(
        select(AiRun, Account.name)
        .outerjoin(Account, Account.id == AiRun.account_id)
        .where(AiRun.org_id == org_id)
        .order_by(AiRun.created_at.desc(), AiRun.id)
        .limit(limit)
    ).all()
    return [(run, name) for run, name in rows]
