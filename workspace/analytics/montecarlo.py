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
from datetime import date, timedelta
from typing import Any

import numpy as np
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
#: Days drawn at once for every run: a 64 x 10,000 matrix is 5 MB.
BLOCK_DAYS = 64


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


class _Draw:
    """Past days drawn uniformly with replacement, as their completions: random bytes,
    those at or above the last whole multiple of the number of past days dropped (so
    every past day is equally likely), looked up in a 256-entry table. numpy's own
    ``integers`` took three times as long for the same draws."""

    def __init__(self, rng: np.random.Generator, values: list[int]) -> None:
        n = len(values)
        if not 0 < n <= 256:
            raise ValueError("between 1 and 256 days to sample")
        self.rng, self.usable = rng, 256 - 256 % n
        # 32-bit totals halve the memory the sums walk, when no total can outgrow them.
        self.dtype = np.int32 if max(values) * HORIZON_DAYS < 2**31 else np.int64
        self.table = np.asarray([values[b % n] for b in range(self.usable)], dtype=self.dtype)

    def days(self, days: int, runs: int) -> np.ndarray:
        """A days x runs matrix of completions."""
        need = days * runs
        kept = np.empty(0, dtype=np.uint8)
        while kept.size < need:
            extra = (need - kept.size) * (256 - self.usable) // self.usable + 64
            raw = np.frombuffer(self.rng.bytes(need - kept.size + extra), dtype=np.uint8)
            kept = np.concatenate((kept, raw[raw < self.usable]))
        return self.table[kept[:need]].reshape(days, runs)


def simulate(open_count: int, values: list[int], runs: int, seed: int) -> dict[str, Any]:
    """Days to finish ``open_count`` and completions in the next 14 days over
    ``runs`` runs, reduced to the confidence levels. Day 1 is tomorrow.

    numpy draws a block of days for every run at once (a runs x days matrix of past
    day indexes), looks up their completions and sums them along the days, so each run's
    running total is a row and no Python loop runs per run or per day. How many runs
    are done on each day of a block is one comparison; before ``earliest`` (the open
    work divided by the best past day) no run can be done, so nothing is compared."""
    rng = np.random.default_rng(seed)
    wanted = {level: math.ceil(level / 100 * runs) for level in LEVELS}
    earliest = math.ceil(open_count / max(values))
    # When even the best day every day cannot finish within the horizon, only the
    # next two weeks are worth simulating.
    last_day = HORIZON_DAYS if earliest <= HORIZON_DAYS else NEXT_DAYS
    draw = _Draw(rng, values)
    totals = np.zeros(runs, dtype=draw.dtype)
    first_weeks = totals
    finish: dict[int, int] = {}
    day = 0  # days simulated so far
    while day < last_day and (len(finish) < len(LEVELS) or day < NEXT_DAYS):
        block = min(BLOCK_DAYS, last_day - day)
        running = draw.days(block, runs)
        running[0] += totals
        # A row per day: adding row by row is a running sum at memory speed, where
        # numpy's cumsum along the first axis walks the matrix by column.
        for i in range(1, block):
            running[i] += running[i - 1]
        if day < NEXT_DAYS <= day + block:
            first_weeks = running[NEXT_DAYS - day - 1]
        if day + block >= earliest:
            done = np.count_nonzero(running >= open_count, axis=1)
            for level, n in wanted.items():
                reached = np.flatnonzero(done >= n)
                if level not in finish and reached.size:
                    finish[level] = day + 1 + int(reached[0])
        totals = running[-1]
        day += block
    next_two_weeks = np.sort(np.minimum(first_weeks, open_count))
    return {
        "levels": [
            {
                "level": level,
                # The day by which ``level``% of the runs have finished, and the
                # number at least ``level``% of the runs complete in two weeks.
                "days": finish.get(level),
                "done_next_two_weeks": int(next_two_weeks[runs - wanted[level]]),
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
