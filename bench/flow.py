"""Flow over time benchmark (docs/analytics.md#flow-over-time): the cumulative flow
over 90 days and the cycle-time percentiles over 90 days, whole biggest org, through
the API, against an independent SQL baseline.

The baselines have another shape on purpose. Flow: a task's first category from a
correlated ``ORDER BY ... LIMIT 1`` (the product uses a window), every move grouped
by UTC hour in SQL and folded into the org's local days in Python (exact for zones a
whole number of hours off UTC, which the bench data's orgs are). Cycle time: first
start from correlated subqueries, percentiles by ``percentile_cont`` on PostgreSQL
(the product computes them in Python from the points it fetches). Answers are
compared before timing; a mismatch is printed as a miss.

Then the write cost of the rollups (migration 0021): creating a task, starting it and
completing it through the API, with the flow and cycle-time triggers and without them
(dropped, then put back and the org's rows of those rollups rebuilt), alternating
with / without / with so a change in the machine's load shows.

    .venv/bin/python bench/flow.py --tasks 200000
    .venv/bin/python bench/flow.py --keep /tmp/bench --reuse   # bench/analytics.py's data
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from api_bench import as_utc, open_api, run, utc_hour
from best_sql import Context
from common import load1, median_ms, triggers_off
from sqlalchemy import text

TARGET_MS = 50
WRITE_GROWTH = 0.2  # task writes at most 20% slower with the flow rollups' triggers
WRITE_RUNS = 15
#: This revision's triggers: the flow moves', the cycle times' and (0028) their histogram's.
OWN_TRIGGERS = ("task_flow_on_", "task_cycle_on_", "task_cycle_weeks_on_")
DAYS = 90
CATEGORIES = ("backlog", "unstarted", "started", "completed", "cancelled")


def flow_baseline(ctx: Context, conn, tz: ZoneInfo, first: date, last: date) -> list[dict]:
    first_old = (
        "(SELECT a.old_category FROM task_activity a WHERE a.task_id = t.id "
        "AND a.field = 'state' ORDER BY a.created_at, a.id LIMIT 1)"
    )
    sql = (
        f"SELECT {utc_hour(ctx, 't.created_at')} AS h, "
        f"COALESCE({first_old}, t.state_category) AS c, count(*) "
        f"FROM tasks t WHERE {ctx.counted} GROUP BY h, c "
        f"UNION ALL SELECT {utc_hour(ctx, 'a.created_at')} AS h, a.new_category, count(*) "
        "FROM task_activity a JOIN tasks t ON t.id = a.task_id "
        f"WHERE a.field = 'state' AND {ctx.counted} GROUP BY h, a.new_category "
        f"UNION ALL SELECT {utc_hour(ctx, 'a.created_at')} AS h, a.old_category, -count(*) "
        "FROM task_activity a JOIN tasks t ON t.id = a.task_id "
        f"WHERE a.field = 'state' AND {ctx.counted} GROUP BY h, a.old_category"
    )
    moves: Counter[tuple[date, str]] = Counter()
    for h, category, n in conn.execute(text(sql), ctx.params()):
        moves[(as_utc(h).astimezone(tz).date(), category)] += n
    level = dict.fromkeys(CATEGORIES, 0)
    for (day, category), n in moves.items():
        if day < first and category in level:
            level[category] += n
    days, day = [], first
    while day <= last:
        for category in CATEGORIES:
            level[category] += moves.get((day, category), 0)
        days.append({"day": day.isoformat(), **level})
        day += timedelta(days=1)
    return days


def cycle_baseline(ctx: Context, conn, tz: ZoneInfo, first: date, last: date) -> dict:
    lo = datetime.combine(first, datetime.min.time(), tz).astimezone(UTC)
    hi = datetime.combine(last + timedelta(days=1), datetime.min.time(), tz).astimezone(UTC)
    into = (
        "(SELECT min(a.created_at) FROM task_activity a WHERE a.task_id = t.id "
        "AND a.field = 'state' AND a.new_category = 'started' "
        "AND (a.old_category IS NULL OR a.old_category != 'started') "
        "AND a.created_at <= t.completed_at)"
    )
    out_of = (
        "(SELECT min(a.created_at) FROM task_activity a WHERE a.task_id = t.id "
        "AND a.field = 'state' AND a.old_category = 'started' AND a.created_at <= t.completed_at)"
    )
    started = (
        f"CASE WHEN {out_of} IS NOT NULL AND ({into} IS NULL OR {out_of} < {into}) "
        f"THEN t.created_at ELSE {into} END"
    )
    days = f"({ctx.epoch('t.completed_at')} - {ctx.epoch(started)}) / 86400.0"
    where = (
        f"{ctx.counted} AND t.state_category = 'completed' "
        "AND t.completed_at >= :lo AND t.completed_at < :hi"
    )
    params = ctx.params(lo=lo, hi=hi)
    if ctx.dialect == "postgresql":
        sql = (
            "SELECT count(d), count(*) - count(d), "
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY d), "
            "percentile_cont(0.85) WITHIN GROUP (ORDER BY d), "
            "percentile_cont(0.95) WITHIN GROUP (ORDER BY d) "
            f"FROM (SELECT round(({days})::numeric, 2) AS d FROM tasks t WHERE {where}) x"
        )
        n, without, *ps = conn.execute(text(sql), params).one()
        return {"points": n, "without": without, "p": [round(float(p or 0), 2) for p in ps]}
    values = sorted(
        round(d, 2)
        for (d,) in conn.execute(text(f"SELECT {days} FROM tasks t WHERE {where}"), params)
        if d is not None
    )
    total = conn.execute(text(f"SELECT count(*) FROM tasks t WHERE {where}"), params).scalar()

    def cont(p: float) -> float:
        if not values:
            return 0.0
        pos = (len(values) - 1) * p
        low = int(pos)
        high = min(low + 1, len(values) - 1)
        return round(values[low] + (values[high] - values[low]) * (pos - low), 2)

    return {
        "points": len(values),
        "without": total - len(values),
        "p": [cont(0.5), cont(0.85), cont(0.95)],
    }


def measure(url: str, instance: str, runs: int) -> list[str]:
    from workspace.extensions import db

    bench = open_api(url, instance, "flow")
    app, tz, ctx, version, rows = bench.app, bench.tz, bench.ctx, bench.version, bench.rows
    lines = [
        f"{version}; biggest org {rows:,} tasks; median of {runs} warm runs, ms",
        "| figure | load | API | baseline SQL | API/baseline | answer | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    last = datetime.now(UTC).astimezone(tz).date()
    first = last - timedelta(days=DAYS - 1)
    query = {"from": first.isoformat(), "to": last.isoformat()}

    def api(path: str):
        return bench.get(path, query)

    def flow_answer():
        return api("cumulative-flow")["days"]

    def cycle_answer():
        body = api("cycle-time")
        assert len(body["points"]) <= 500 and body["truncated"] == (
            len(body["points"]) < body["point_count"]
        )
        return {
            "points": body["point_count"],
            "without": body["completed_without_start"],
            "p": [p["days"] for p in body["percentiles"]],
        }

    figures = (
        ("cumulative flow, 90 days", flow_answer, flow_baseline),
        ("cycle-time percentiles, 90 days", cycle_answer, cycle_baseline),
    )
    for name, answer_of, baseline in figures:
        load = load1()
        answer = answer_of()
        problems = []
        with app.app_context(), db.engine.connect() as conn:

            def base(baseline=baseline, conn=conn):
                result = baseline(ctx, conn, tz, first, last)
                conn.rollback()
                return result

            if base() != answer:
                problems.append("baseline differs")
            base_ms = median_ms(base, runs)
        api_ms = median_ms(answer_of, runs)
        if api_ms > TARGET_MS:
            problems.append(f"API > {TARGET_MS} ms")
        shown = answer[-1] if isinstance(answer, list) else answer
        lines.append(
            f"| {name} | {load:.1f} | {api_ms:.0f} | {base_ms:.0f} | {api_ms / base_ms:.2f}x "
            f"| {shown} | {'; '.join(problems) or 'ok'} |"
        )
        print("  " + lines[-1], flush=True)
    lines.append(write_overhead(bench))
    print("  " + lines[-1], flush=True)
    bench.close()
    return lines


def write_latency(bench, project_id: uuid.UUID, states: tuple, runs: int) -> list[float]:
    """Median ms of creating a task, moving it to a started state and completing it."""
    steps = ((None, 201), (states[0], 200), (states[1], 200))
    samples: list[list[float]] = [[] for _ in steps]
    base = f"/api/v1/orgs/{bench.org_id}"
    for i in range(runs + 1):
        task_id = None
        for times, (state, status) in zip(samples, steps, strict=True):
            began = time.perf_counter()
            if state is None:
                resp = bench.client.post(
                    f"{base}/projects/{project_id}/tasks",
                    json={"title": f"bench flow write {i}"},
                    headers=bench.headers,
                )
            else:
                resp = bench.client.patch(
                    f"{base}/tasks/{task_id}", json={"state_id": str(state)}, headers=bench.headers
                )
            took = (time.perf_counter() - began) * 1000
            assert resp.status_code == status, resp.get_data(as_text=True)
            task_id = resp.get_json()["id"]
            if i:  # the first warms the caches
                times.append(took)
    return [statistics.median(t) for t in samples]


@contextmanager
def own_triggers_off(org_id: uuid.UUID) -> Iterator[int]:
    """This revision's triggers off (the other rollups' stay), then back and the org's
    rows of its rollups rebuilt from a scan. Yields how many were off."""
    from workspace.analytics import consistency, cycle_rollup, cycle_weeks, flow_rollup
    from workspace.extensions import db

    try:
        with triggers_off(
            lambda name: name.startswith(OWN_TRIGGERS), tables=None, disable=True
        ) as off:
            yield off
    finally:
        for rollup in (*flow_rollup.ROLLUPS, *cycle_rollup.ROLLUPS, *cycle_weeks.ROLLUPS):
            consistency._rebuild(rollup, org_id)
        db.session.commit()


def write_overhead(bench) -> str:
    from sqlalchemy import select

    from workspace.core.models import State
    from workspace.extensions import db

    with bench.app.app_context():
        project_id = bench.ctx.first_project
        states = tuple(
            db.session.scalar(
                select(State.id).where(State.project_id == project_id, State.category == c)
            )
            for c in ("started", "completed")
        )
        load = load1()
        first = write_latency(bench, project_id, states, WRITE_RUNS)
        with own_triggers_off(bench.org_id) as off:
            bare = write_latency(bench, project_id, states, WRITE_RUNS)
        again = write_latency(bench, project_id, states, WRITE_RUNS)
    timed = [(a + b) / 2 for a, b in zip(first, again, strict=True)]
    growth = [ms / base - 1 for ms, base in zip(timed, bare, strict=True)]

    def ms(values: list[float]) -> str:
        return " / ".join(f"{v:.1f}" for v in values)

    line = (
        f"task writes through the API (load {load:.1f}, median ms, create / start / complete): "
        f"with the flow rollups {ms(timed)} (runs {ms(first)} then {ms(again)}), "
        f"without their {off} triggers {ms(bare)} "
        f"(growth {' / '.join(f'{g * 100:+.0f}%' for g in growth)})"
    )
    if max(growth) > WRITE_GROWTH:
        line += f"; over the {WRITE_GROWTH:.0%} target"
    return line


def main() -> None:
    run("flow.py", "bench-flow-", measure)


if __name__ == "__main__":
    main()
