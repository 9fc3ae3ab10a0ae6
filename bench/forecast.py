"""Monte Carlo forecast benchmark (docs/analytics.md#forecast-dates): the dates for the
biggest org's open work, 10,000 runs over 12 weeks of daily throughput, through the
API, against an independent baseline.

The baseline has another shape on purpose: the daily throughput from a scan of the
status history (joined to the tasks, grouped by UTC hour in SQL and folded into the
org's local days in Python: exact for zones a whole number of hours off UTC, which the
bench data's orgs are), the open count from a GROUP BY over the tasks, and the runs
as a plain replay, one ``random.choices`` draw per run and day with a running sum.
The sampled figures and the open count must be equal; the dates of two different
random streams may differ by sampling error, so the levels are compared within 1%
of the days (at least a day).

    .venv/bin/python bench/forecast.py --tasks 200000
    .venv/bin/python bench/forecast.py --keep /tmp/bench --reuse   # bench/analytics.py's data
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from api_bench import as_utc, open_api, run, utc_hour
from best_sql import Context
from common import load1, median_ms
from sqlalchemy import text

TARGET_MS = 50
WEEKS = 12
RUNS = 10_000
LEVELS = (50, 85, 95)


def baseline(ctx: Context, conn, tz: ZoneInfo, today: date, priorities=()) -> dict:
    first = today - timedelta(days=WEEKS * 7)
    lo = datetime.combine(first, time(), tz).astimezone(UTC)
    hi = datetime.combine(today, time(), tz).astimezone(UTC)
    sql = (
        f"SELECT {utc_hour(ctx, 'a.created_at')} AS h, count(*) FROM task_activity a "
        "JOIN tasks t ON t.id = a.task_id WHERE a.field = 'state' "
        "AND a.new_category = 'completed' "
        "AND (a.old_category IS NULL OR a.old_category != 'completed') "
        f"AND a.created_at >= :lo AND a.created_at < :hi AND {ctx.counted} GROUP BY h"
    )
    per_day: Counter[date] = Counter()
    for h, n in conn.execute(text(sql), ctx.params(lo=lo, hi=hi)):
        per_day[as_utc(h).astimezone(tz).date()] += n
    values = [per_day[first + timedelta(days=i)] for i in range(WEEKS * 7)]
    only = "".join(f", '{p}'" for p in priorities)[2:]
    open_sql = (
        f"SELECT t.state_category, count(*) FROM tasks t WHERE {ctx.counted} "
        + (f"AND t.priority IN ({only}) " if only else "")
        + "GROUP BY t.state_category"
    )
    by_category = dict(conn.execute(text(open_sql), ctx.params()).all())
    remaining = sum(by_category.get(c, 0) for c in ("backlog", "unstarted", "started"))
    return {
        "open": remaining,
        "days": len(values),
        "completed": sum(values),
        "levels": replay(remaining, values) if remaining and any(values) else [],
    }


def replay(remaining: int, values: list[int]) -> list[tuple[int, int]]:
    """(days to finish, done in 14 days) at each level, run by run, day by day."""
    rng = random.Random(1)
    finish, first_weeks = [], []
    for _ in range(RUNS):
        total, day, fortnight = 0, 0, 0
        while total < remaining and day < 3 * 365:
            step = rng.choices(values, k=64)
            for n in step:
                day += 1
                total += n
                if day == 14:
                    fortnight = total
                if total >= remaining:
                    break
        if day < 14:
            fortnight = total + sum(rng.choices(values, k=14 - day))
        finish.append(day if total >= remaining else 10**9)
        first_weeks.append(min(fortnight, remaining))
    finish.sort()
    first_weeks.sort()
    out = []
    for level in LEVELS:
        at = math.ceil(level / 100 * RUNS)
        out.append((finish[at - 1], first_weeks[RUNS - at]))
    return out


def close(api: list[tuple[int, int]], base: list[tuple[int, int]]) -> bool:
    def near(a: int, b: int) -> bool:
        return abs(a - b) <= max(1, b // 100)

    return all(near(a[0], b[0]) and near(a[1], b[1]) for a, b in itertools.zip_longest(api, base))


def measure(url: str, instance: str, runs: int) -> list[str]:
    from workspace.extensions import db

    bench = open_api(url, instance, "forecast")
    app, tz, ctx, version, rows = bench.app, bench.tz, bench.ctx, bench.version, bench.rows
    lines = [
        f"{version}; biggest org {rows:,} tasks; median of {runs} warm runs, ms",
        "| figure | load | API | baseline | API/baseline | answer | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    today = datetime.now(UTC).astimezone(tz).date()
    figures = (
        ("Monte Carlo dates, whole org", {}, ()),
        (
            "Monte Carlo dates, urgent and high",
            {"filter": "priority IN (urgent, high)"},
            ("urgent", "high"),
        ),
    )
    for name, query, priorities in figures:

        def answer_of(query=query):
            return bench.get("forecast/dates", {"weeks": WEEKS, **query})

        load = load1()
        body = answer_of()
        answer = {
            "open": body["open"],
            "days": body["sample"]["days"],
            "completed": body["sample"]["completed"],
            "levels": [(r["days"], r["done_next_two_weeks"]) for r in body["levels"]],
        }
        problems = []
        with app.app_context(), db.engine.connect() as conn:

            def base(conn=conn, priorities=priorities):
                result = baseline(ctx, conn, tz, today, priorities)
                conn.rollback()
                return result

            expected = base()
            if {k: v for k, v in expected.items() if k != "levels"} != {
                k: v for k, v in answer.items() if k != "levels"
            }:
                problems.append(f"baseline differs: {expected}")
            elif not close(answer["levels"], expected["levels"]):
                problems.append(f"levels differ: {expected['levels']}")
            base_ms = median_ms(base, max(1, runs // 3))
        api_ms = median_ms(answer_of, runs)
        if api_ms > TARGET_MS:
            problems.append(f"API > {TARGET_MS} ms")
        lines.append(
            f"| {name} | {load:.1f} | {api_ms:.0f} | {base_ms:.0f} | {api_ms / base_ms:.2f}x "
            f"| {body['sampled']}; open {answer['open']}; {answer['levels']} "
            f"| {'; '.join(problems) or 'ok'} |"
        )
        print("  " + lines[-1], flush=True)
    bench.close()
    return lines


def main() -> None:
    run("forecast.py", "bench-forecast-", measure)


if __name__ == "__main__":
    main()
