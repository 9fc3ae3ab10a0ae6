"""The limits of asking for a chart (docs/security.md#limits, docs/ai.md#limits): asks
are rate limited per member and per org (``ASK_RATE_PER_MEMBER``, ``ASK_RATE_PER_ORG``,
in the rate limiter's storage); at most ``ASK_MAX_IN_FLIGHT_PER_ORG`` asks of one org
are in flight (queued or running) at once; the credits of a model call are reserved before it
(:mod:`workspace.agents.credits`) by :func:`reserve`.

Both hold across web processes, workers and machines because both live in the
database under the org's lock (:func:`credits.lock_pool`): :func:`claim_slot` counts
the org's unfinished ``ai.ask`` jobs when one is queued (the model call runs on a
worker, docs/jobs.md#ask-a-chart), and :func:`reserve` writes the run that holds the
credits, committed before the call so every other worker counts it."""

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
from workspace.jobs import service as jobs
from workspace.transaction import commit_early

#: Defaults of the app settings of the same names (docs/security.md#limits).
ASK_RATE_PER_MEMBER = "10 per minute"
ASK_RATE_PER_ORG = "60 per minute"
ASK_MAX_IN_FLIGHT_PER_ORG = 2
#: The job kind of an ask whose model call runs on a worker.
ASK_JOB = "ai.ask"
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


def max_in_flight() -> int:
    return int(current_app.config.get("ASK_MAX_IN_FLIGHT_PER_ORG", ASK_MAX_IN_FLIGHT_PER_ORG))


def claim_slot(org_id: uuid.UUID) -> None:
    """Refuse (429) a new ask job when the org already has ``ASK_MAX_IN_FLIGHT_PER_ORG``
    asks queued, running or retrying. Under the org's lock, held until the caller
    commits the new job, so two asks racing on any two machines cannot both take the
    last place. (Without saved model settings there is no row to lock and no model to
    call: the count still bounds the org's share of the queue, without the lock.)"""
    credits.lock_pool(org_id)
    if jobs.count_unfinished(ASK_JOB, org_id=org_id) >= max_in_flight():
        raise TooManyAsks(IN_FLIGHT_MESSAGE)


def reserve(
    row: AiSettings,
    text: str,
    org_id: uuid.UUID,
    account: Account,
    now: datetime,
    reserve: int,
    run_id: uuid.UUID | None = None,
) -> AiRun | None:
    """Write the ask's run as ``running`` with its credits reserved, and commit it so
    concurrent asks (in any worker) see it; None when the pool is used up. Under the
    org's lock, so two asks cannot both take the last credits or the last slot.

    ``run_id`` names the run (a job's id): a later attempt of the same job finds the
    reservation its earlier attempt left and takes it over, so a job retried after its
    worker died holds one reservation and writes one run."""
    credits.lock_pool(org_id)
    run = db.session.get(AiRun, run_id) if run_id else None
    left = credits.pool_limit(org_id) - credits.used(org_id, now, besides=run_id)
    if left <= 0:
        return None
    if credits.in_flight(org_id, now, besides=run_id) >= max_in_flight():
        raise TooManyAsks(IN_FLIGHT_MESSAGE)
    if run is None:
        run = AiRun(**({"id": run_id} if run_id else {}), org_id=org_id)
        db.session.add(run)
    run.account_id = account.id
    run.actor_kind = account.kind
    run.prompt = text
    run.model = row.model
    run.outcome = credits.RUNNING
    run.metric, run.dimension, run.title = DEFAULT.metric, DEFAULT.dimension, DEFAULT.title
    run.credits_charged = min(reserve, left)
    run.created_at = now
    db.session.flush()
    commit_early("the reservation must be visible to concurrent asks")
    return run
