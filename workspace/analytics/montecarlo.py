"""The Monte Carlo forecast (docs/analytics.md#forecast-dates): when will the open
work be done, at 50, 85 and 95% confidence, and how many will be done in two weeks.

It samples the daily throughput of the last N weeks (whole days in the org's zone,
days without completions included as zeros) and replays it: every run draws one past
day at random for each future day until the open work is used up. The history comes
from the hourly completions rollup (migration 0009), the open count from the
maintained counts: no task is loaded.
"""

from __future__ import annotations

import hashlib
import math
import random
import sys
from datetime import date, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, select

from workspace.analytics import rollups, task_counts
from workspace.analytics.rollup_rewrite import read_counts
from workspace.analytics.scope import Scope, tune_for_analytics
from workspace.core.models import Task
from workspace.core.models.projects import OPEN_CATEGORIES

RUNS = 10_000
LEVELS = (50, 85, 95)
NEXT_DAYS = 14
#: A run that has not finished after this many days stops: the date is "later than".
HORIZON_DAYS = 3 * 365
#: Days between two counts of the finished runs.
STRIDE = 8


def daily_throughput(scope: Scope, weeks: int) -> list[tuple[date, int]]:
    """Completions per whole day (org zone) over the ``weeks`` x 7 days before
    today, oldest first, zeros included; read like the weekly forecast (the hourly
    rollup, and the history for the part-hour edges of quarter-hour zones)."""
    days = [scope.today - timedelta(days=weeks * 7 - i) for i in range(weeks * 7 + 1)]
    bounds = [scope.day_start(d) for d in days]
    hours = [b.replace(minute=0, second=0, microsecond=0) for b in bounds]
    tune_for_analytics()
    by_hours = task_counts.completions(scope.org_id, scope.project_id, hours)
    edges = rollups.completions_from_history(
        scope, [(h, b) for h, b in zip(hours, bounds, strict=True) if h != b]
    )
    before = [edges.get((h, b), 0) for h, b in zip(hours, bounds, strict=True)]
    return [(days[i], by_hours[i] - before[i] + before[i + 1]) for i in range(weeks * 7)]


def open_work(scope: Scope, conditions: list[ColumnElement[bool]]) -> int:
    """Tasks that count in backlog, unstarted or started (cancelled is closed work)."""
    open_values = [c.value for c in OPEN_CATEGORIES]
    query = select(func.count()).where(
        *scope.where(), Task.state_category.in_(open_values), *conditions
    )
    return int(read_counts(query).scalar() or 0)


def _seed(*parts: Any) -> int:
    """The same inputs give the same runs, so a reload shows the same dates."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class _Runs:
    """All runs side by side, one day at a time, in C-speed operations only.

    Each run's running total is a fixed-width field of one big Python integer, so a
    single integer addition advances every run by a day. A day is ``runs`` random
    bytes (those above the last whole multiple of len(values) dropped, so every past
    day is equally likely), each read as the index of a past day; ``bytes.translate``
    turns the indexes into that day's completions, written byte by byte into the
    fields through a bytearray's extended slices. How many runs are done is one
    addition, a mask and ``int.bit_count``: adding 2**(w-1) - need to every field sets
    its top bit exactly when its total reached ``need``. Measured in
    docs/analytics.md#forecast-dates."""

    def __init__(self, rng: random.Random, values: list[int], runs: int, need: int) -> None:
        n = len(values)
        if not 0 < n <= 256:
            raise ValueError("between 1 and 256 days to sample")
        self.rng, self.runs = rng, runs
        self.usable = 256 - 256 % n
        self.dropped = bytes(range(self.usable, 256))
        digits = max(1, (max(values).bit_length() + 7) // 8)
        self.tables = [
            bytes((values[b % n] >> (8 * j)) & 255 if b < self.usable else 0 for b in range(256))
            for j in range(digits)
        ]
        # A field holds the largest possible total with its top bit still clear.
        largest = max(values) * HORIZON_DAYS + need
        self.width = next(w for w in (4, 8, 16) if largest < 2 ** (8 * w - 1) and w >= digits)
        bits = 8 * self.width
        self.top = int.from_bytes(bytes([0] * (self.width - 1) + [128]) * runs, "little")
        field = (2 ** (bits - 1) - need).to_bytes(self.width, "little")
        self.offset = int.from_bytes(field * runs, "little")
        self.buffer = bytearray(self.width * runs)

    def day(self) -> int:
        """One more day for every run, as the big integer to add."""
        raw = b""
        while len(raw) < self.runs:
            need = self.runs - len(raw)
            extra = need * (256 - self.usable) // self.usable + 16
            raw += self.rng.randbytes(need + extra).translate(None, self.dropped)
        raw = raw[: self.runs]
        for j, table in enumerate(self.tables):
            self.buffer[j :: self.width] = raw.translate(table)
        return int.from_bytes(self.buffer, "little")

    def finished(self, totals: int) -> int:
        return ((totals + self.offset) & self.top).bit_count()

    def fields(self, totals: int) -> list[int]:
        raw = memoryview(totals.to_bytes(self.width * self.runs, "little"))
        if self.width in (4, 8) and sys.byteorder == "little":
            return raw.cast("I" if self.width == 4 else "Q").tolist()
        w = self.width
        return [int.from_bytes(raw[i : i + w], "little") for i in range(0, len(raw), w)]


def simulate(open_count: int, values: list[int], runs: int, seed: int) -> dict[str, Any]:
    """Days to finish ``open_count`` and completions in the next 14 days over
    ``runs`` runs, reduced to the confidence levels. Day 1 is tomorrow."""
    sim = _Runs(random.Random(seed), values, runs, open_count)
    wanted = {level: math.ceil(level / 100 * runs) for level in LEVELS}
    finish: dict[int, int] = {}
    # No run can finish before ``earliest`` (every day its best past day); after it,
    # the runs are counted every STRIDE days, and only when a level is newly reached
    # are the days since the last count counted one by one, to find its exact day.
    earliest = math.ceil(open_count / max(values))
    totals, first_weeks, pending = 0, 0, []
    # When even the best day every day cannot finish within the horizon, only the
    # next two weeks are worth simulating.
    last_day = HORIZON_DAYS if earliest <= HORIZON_DAYS else NEXT_DAYS
    for day in range(1, last_day + 1):
        totals += sim.day()
        if day == NEXT_DAYS:
            first_weeks = totals
        if day < earliest:
            continue
        pending.append((day, totals))
        if len(pending) < STRIDE and day < last_day:
            continue
        done = sim.finished(totals)
        if any(level not in finish and done >= n for level, n in wanted.items()):
            for at, running in pending:
                done = sim.finished(running)
                for level, n in wanted.items():
                    if level not in finish and done >= n:
                        finish[level] = at
        pending.clear()
        if len(finish) == len(LEVELS) and day >= NEXT_DAYS:
            break
    next_two_weeks = sorted(min(n, open_count) for n in sim.fields(first_weeks))
    return {
        "levels": [
            {
                "level": level,
                # The day by which ``level``% of the runs have finished, and the
                # number at least ``level``% of the runs complete in two weeks.
                "days": finish.get(level),
                "done_next_two_weeks": next_two_weeks[runs - wanted[level]],
            }
            for level in LEVELS
        ]
    }


def forecast_dates(
    scope: Scope,
    weeks: int,
    conditions: list[ColumnElement[bool]] | None = None,
    pql: str | None = None,
) -> dict[str, Any]:
    """The Monte Carlo forecast for the open work of the scope (and of a selection:
    ``conditions``, compiled from the PQL ``pql`` by the caller): its dates, what it
    sampled, and a message when it cannot say."""
    result = _forecast(scope, weeks, conditions or [], pql)
    result["sampled"] = sampled_text(result)
    return result


def _forecast(
    scope: Scope, weeks: int, conditions: list[ColumnElement[bool]], pql: str | None
) -> dict[str, Any]:
    history = daily_throughput(scope, weeks)
    values = [n for _, n in history]
    remaining = open_work(scope, conditions)
    result: dict[str, Any] = {
        "weeks": weeks,
        "filter": pql.strip() if pql and pql.strip() else None,
        "open": remaining,
        "sample": {
            "first_day": history[0][0],
            "last_day": history[-1][0],
            "days": len(history),
            "completed": sum(values),
        },
        "runs": 0,
        "today": scope.today,
        "levels": [],
        "message": None,
    }
    if remaining == 0:
        result["message"] = "No open work in this selection: nothing to forecast."
        return result
    if not any(values):
        result["message"] = (
            f"Nothing was completed in the last {weeks} weeks, so there is no "
            "throughput to sample and no date to give."
        )
        return result
    seed = _seed(scope.org_id, scope.project_id, result["filter"], weeks, remaining, values)
    simulated = simulate(remaining, values, RUNS, seed)
    result["runs"] = RUNS
    for row in simulated["levels"]:
        days = row["days"]
        result["levels"].append(
            {
                "level": row["level"],
                "days": days,
                "date": scope.today + timedelta(days=days) if days else None,
                "done_next_two_weeks": row["done_next_two_weeks"],
            }
        )
    return result


def sampled_text(result: dict[str, Any]) -> str:
    """What the forecast sampled, in words: "12 weeks of daily throughput, 3 Sep to
    25 Nov, 84 days, 412 completed; 10,000 runs"."""
    sample = result["sample"]

    def day(d: date) -> str:
        return f"{d.day} {d:%b}" + (f" {d.year}" if d.year != result["today"].year else "")

    text = (
        f"{result['weeks']} weeks of daily throughput, {day(sample['first_day'])} \u2013 "
        f"{day(sample['last_day'])}, {sample['days']} days, {sample['completed']:,} completed"
    )
    return text + (f"; {result['runs']:,} runs" if result["runs"] else "; not simulated")
