"""Periodic work: each schedule runs once per period however many schedulers run
(every worker process runs one). A scheduler claims a period by inserting its
``ScheduleRun`` row; the primary key lets exactly one insert win, and only the winner
starts the period's job (docs/jobs.md#schedules).

A period is a ``timedelta``, or a function of the app's config that answers one (read
at each tick, in the app's context), for a period an operator sets: ``jobs.sweep``
runs every ``JOBS_SWEEP_SECONDS``.

Schedules that belong to an org (each org's directory sync, at the period its admin
set) come from a provider registered with :func:`provide`: a function that answers the
current schedules at each tick, claimed the same way."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy.exc import IntegrityError

from workspace.extensions import db
from workspace.jobs.models import ScheduleRun
from workspace.jobs.service import enqueue
from workspace.transaction import unit_of_work

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Schedule:
    name: str
    every: timedelta | Callable[[Mapping[str, Any]], timedelta]
    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    #: The org whose job this is (a provider's schedule), or None for the instance's.
    org_id: uuid.UUID | None = None

    def period(self) -> timedelta:
        """The period, from the current app's config when it is set there."""
        if isinstance(self.every, timedelta):
            return self.every
        return self.every(current_app.config)

    def period_start(self, now: datetime) -> datetime:
        """The start of the period ``now`` falls in, counted from the Unix epoch."""
        seconds = max(1, int(self.period().total_seconds()))
        epoch = int(now.timestamp())
        return datetime.fromtimestamp(epoch - epoch % seconds, UTC)


#: Every schedule by name; capabilities add theirs with :func:`every`.
SCHEDULES: dict[str, Schedule] = {}
#: Functions answering the schedules of the moment (read in the app's context).
PROVIDERS: list[Callable[[], list[Schedule]]] = []


def every(
    period: timedelta | Callable[[Mapping[str, Any]], timedelta], name: str, kind: str, **args: Any
) -> Schedule:
    schedule = Schedule(name, period, kind, args)
    SCHEDULES[name] = schedule
    return schedule


def provide(provider: Callable[[], list[Schedule]]) -> None:
    """Register ``provider``, asked at every tick for schedules that come and go (one
    per org with a directory sync, say)."""
    if provider not in PROVIDERS:
        PROVIDERS.append(provider)


def current() -> list[Schedule]:
    """The fixed schedules and every provider's, as of now."""
    found = list(SCHEDULES.values())
    for provider in list(PROVIDERS):
        try:
            with unit_of_work():  # a failed read is rolled back, not left to the claims
                found.extend(provider())
        except Exception:  # one provider's failure must not stop the sweep's schedule
            log.exception("a schedule provider failed; its schedules wait for the next tick")
    return found


def fire_due(now: datetime, claimed_by: str) -> list[str]:
    """Start every schedule whose current period no scheduler has claimed yet; the
    names of those this scheduler started. Commits each claim on its own."""
    started = []
    for schedule in current():
        period = schedule.period_start(now)
        if db.session.get(ScheduleRun, (schedule.name, period)) is not None:
            continue  # claimed already: no insert to lose
        try:
            with unit_of_work():  # each claim on its own
                job = enqueue(schedule.kind, org_id=schedule.org_id, args=schedule.args)
                db.session.add(
                    ScheduleRun(
                        schedule=schedule.name,
                        period_start=period,
                        job_id=job.id,
                        claimed_by=claimed_by,
                    )
                )
                # Inside the block, so a lost claim is rolled back here: raised by the
                # commit, it would leave the session failed for the schedules after it.
                db.session.flush()
            started.append(schedule.name)
        except IntegrityError:
            pass  # rolled back: another scheduler has this period, and its job runs
    return started
