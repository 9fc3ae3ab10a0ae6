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
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime

from sqlalchemy import func, select

from workspace.agents.models import AiRun
from workspace.core.models import Account, AccountKind, OrgMember
from workspace.extensions import db

CREDITS_PER_SEAT = 500
CREDITS_PER_CALL = 1
TOKENS_PER_CREDIT = 1000


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


def used(org_id: uuid.UUID, now: datetime) -> int:
    start, end = month_bounds(now)
    return (
        db.session.scalar(
            select(func.coalesce(func.sum(AiRun.credits_charged), 0)).where(
                AiRun.org_id == org_id, AiRun.created_at >= start, AiRun.created_at < end
            )
        )
        or 0
    )


def usage(org_id: uuid.UUID, now: datetime | None = None) -> dict[str, int | float]:
    """``{used, limit, remaining, percent}`` for the calendar month holding ``now``.
    ``percent`` is the share of the limit used, one decimal, at most 100."""
    now = now or datetime.now(UTC)
    spent = int(used(org_id, now))
    limit = CREDITS_PER_SEAT * billable_seats(org_id)
    percent = round(min(spent / limit, 1.0) * 100, 1) if limit else 100.0
    return {
        "used": spent,
        "limit": limit,
        "remaining": max(limit - spent, 0),
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
