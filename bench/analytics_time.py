"""Time series benchmark (docs/analytics.md#time): completed per week over a year,
created per day over 90 days and completed per week by project, whole biggest org,
through the API, against an independent SQL baseline; in the org's zone (UTC in the
bench data) and again in America/New_York, whose week and day edges cut UTC days;
then the cost of the time series rollup's triggers on task writes.

The baseline has another shape on purpose: one GROUP BY of the UTC hour over the
tasks in SQL, folded into the org's local buckets in Python with its own week start
(exact for zones a whole number of hours off UTC, which both zones are; the product
reads the maintained rollup task_time_counts). The answers are compared before
timing; a mismatch is printed as a miss.

    .venv/bin/python bench/analytics_time.py --tasks 200000
    .venv/bin/python bench/analytics_time.py --keep /tmp/timebench --reuse   # kept data
"""

from __future__ import annotations

import json
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
from sqlalchemy import inspect, text

TARGET_MS = 50
FIGURES = {
    "completed per week, a year": {
        "dimension": "completed",
        "interval": "week",
        "metric": "done",
        "weeks": 52,
    },
    "created per day, 90 days": {"dimension": "created", "interval": "day", "days": 90},
    "completed per week by project, a year": {
        "dimension": "completed",
        "interval": "week",
        "metric": "done",
        "weeks": 52,
        "split": "project",
    },
}


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZONES = (None, "America/New_York")  # None: the org's own (UTC in the bench data)
WRITE_GROWTH = 0.2  # task writes at most 20% slower with the rollup's triggers
WRITE_RUNS = 7  # writes per step, setting and round
WRITE_ROUNDS = 6
TIME_TRIGGERS = ("task_time_counts_on_insert", "task_time_counts_on_delete",
                 "task_time_counts_on_update")  # fmt: skip


def _first_day(day: date, interval: str, week_start: int) -> date:
    """The first day of ``day``'s bucket, written here rather than taken from the app."""
    if interval == "day":
        return day
    return day - timedelta(days=(day.weekday() - week_start) % 7)


def _baseline(ctx: Context, conn, tz: ZoneInfo, figure: dict, first: date, last: date):
    """``{bucket start: count}`` by the hour-grouped statement, folded in Python."""
    column = "t.created_at" if figure["dimension"] == "created" else "t.completed_at"
    extra = " AND t.state_category = 'completed'" if figure["dimension"] == "completed" else ""
    week_start = WEEKDAYS.index(
        conn.execute(text("SELECT week_start FROM orgs WHERE id = :org"), ctx.params()).scalar()
    )
    lo = datetime.combine(first, datetime.min.time(), tz).astimezone(UTC)
    hi = datetime.combine(last + timedelta(days=1), datetime.min.time(), tz).astimezone(UTC)
    by = ", t.project_id" if figure.get("split") else ", NULL"
    sql = (
        f"SELECT {utc_hour(ctx, column)} AS h{by} AS p, count(*) FROM tasks t "
        f"WHERE {ctx.counted}{extra} AND {column} >= :lo AND {column} < :hi GROUP BY h, p"
    )
    params = ctx.params(lo=lo, hi=hi)
    counts: Counter[tuple[str, str]] = Counter()
    for h, project, n in conn.execute(text(sql), params):
        local = as_utc(h).astimezone(tz).date()
        day = _first_day(local, figure["interval"], week_start).isoformat()
        counts[day, str(uuid.UUID(str(project))) if project else ""] += n
    return counts


def _answer(body: dict) -> Counter[tuple[str, str]]:
    """The API's figures as the baseline folds them: (bucket, project id) -> count."""
    if not body.get("series"):
        return Counter({(p["key"], ""): p["value"] for p in body["points"] if p["value"]})
    keys = [p["key"] for p in body["points"]]
    return Counter(
        {
            (keys[i], line["id"]): n
            for line in body["series"]
            for i, n in enumerate(line["values"])
            if n
        }
    )


@contextmanager
def zone(bench, name: str | None) -> Iterator[ZoneInfo]:
    """The org in zone ``name`` (None: as it is) for the block, then as it was."""
    from workspace.core.models import Org
    from workspace.extensions import db

    if name is None:
        yield bench.tz
        return
    with bench.app.app_context():
        org = db.session.get(Org, bench.org_id)
        before, org.timezone = org.timezone, name
        db.session.commit()
    try:
        yield ZoneInfo(name)
    finally:
        with bench.app.app_context():
            db.session.get(Org, bench.org_id).timezone = before
            db.session.commit()


def measure(url: str, instance: str, runs: int) -> list[str]:
    from workspace.extensions import db

    bench = open_api(url, instance, "time")
    app, ctx, version, rows = bench.app, bench.ctx, bench.version, bench.rows
    lines = [
        f"{version}; biggest org {rows:,} tasks; median of {runs} warm runs, ms",
        "| figure | zone | load | API | baseline SQL | API/baseline | points | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for zone_name in ZONES:
        with zone(bench, zone_name) as tz:
            for name, figure in FIGURES.items():
                lines.append(_figure(bench, app, db, ctx, tz, name, figure, runs))
                print("  " + lines[-1], flush=True)
    lines.append(_writes(bench))
    print("  " + lines[-1], flush=True)
    if bench.ctx.dialect == "postgresql":
        with app.app_context():
            lines.append(_trigger_time(bench))
        print("  " + lines[-1], flush=True)
    bench.close()
    return lines


def _figure(bench, app, db, ctx, tz, name: str, figure: dict, runs: int) -> str:
    today = datetime.now(UTC).astimezone(tz).date()
    if "weeks" in figure:
        with app.app_context(), db.engine.connect() as conn:
            weekday = conn.execute(
                text("SELECT week_start FROM orgs WHERE id = :org"), ctx.params()
            ).scalar()
        first = _first_day(today, "week", WEEKDAYS.index(weekday))
        first -= timedelta(weeks=figure["weeks"] - 1)
    else:
        first = today - timedelta(days=figure["days"] - 1)
    query = {
        "metric": figure.get("metric", "count"),
        "dimension": figure["dimension"],
        "interval": figure["interval"],
        "from": first.isoformat(),
        "to": today.isoformat(),
        **({"split": figure["split"]} if "split" in figure else {}),
    }

    def api():
        return bench.get("custom", query)

    load = load1()
    body = api()
    answer = {p["key"]: p["value"] for p in body["points"]}
    problems = []
    with app.app_context(), db.engine.connect() as conn:

        def base():
            result = _baseline(ctx, conn, tz, figure, first, today)
            conn.rollback()
            return result

        if _answer(body) != base():
            problems.append("baseline differs")
        base_ms = median_ms(base, runs)
    api_ms = median_ms(api, runs)
    if api_ms > TARGET_MS:
        problems.append(f"API > {TARGET_MS} ms")
    return (
        f"| {name} | {tz.key} | {load:.1f} | {api_ms:.0f} | {base_ms:.0f} | "
        f"{api_ms / base_ms:.2f}x | {len(answer)} ({sum(answer.values()):,} tasks) | "
        f"{'; '.join(problems) or 'ok'} |"
    )


def _writes(bench) -> str:
    """Median ms of creating a task, starting it and completing it through the API:
    with every trigger, without the time series rollup's three, and without any. The
    three settings take turns, WRITE_ROUNDS rounds, so a change in the machine's load
    falls on all three alike; the rollups are repaired once at the end."""
    from workspace.extensions import db

    settings = {"all": (), "mine": TIME_TRIGGERS, "none": None}
    samples = {name: [[], [], []] for name in settings}
    with bench.app.app_context():
        load = load1()
        what = "CPU" if db.engine.dialect.name == "sqlite" else "clock"
        states = _states(bench)
        _write_latency(bench, states, 3)  # warm the caches
        try:
            for _ in range(WRITE_ROUNDS):
                for name, dropped in settings.items():
                    with triggers_off(dropped) as found:
                        for times, new in zip(
                            samples[name], _write_latency(bench, states, WRITE_RUNS), strict=True
                        ):
                            times.extend(new)
                    if dropped is None:
                        every = found
        finally:
            _repair(bench)
        db.session.commit()
    timed, without, bare = (
        [statistics.median(times) for times in samples[name]] for name in settings
    )

    def ms(values):
        return " / ".join(f"{v:.1f}" for v in values)

    def growth(values):
        return [a / b - 1 for a, b in zip(timed, values, strict=True)]

    mine, total = growth(without), growth(bare)
    line = (
        f"task writes through the API (load {load:.1f}, {what} ms, median of "
        f"{WRITE_ROUNDS * WRITE_RUNS}), create / start / complete: {ms(timed)}; without "
        f"task_time_counts' 3 triggers {ms(without)} (growth "
        f"{' / '.join(f'{g * 100:+.0f}%' for g in mine)}); without all {every} rollup "
        f"triggers {ms(bare)} (growth {' / '.join(f'{g * 100:+.0f}%' for g in total)})"
    )
    if max(mine) > WRITE_GROWTH:
        line += f"; the rollup's triggers over the {WRITE_GROWTH:.0%} target"
    return line


def _trigger_time(bench, runs: int = 60) -> str:
    """The server's own account of a completion (EXPLAIN ANALYZE of the UPDATE, rolled
    back): what the time rollup's triggers take of it, which the clock of a loaded
    machine cannot resolve through the API."""
    from workspace.extensions import db

    project, _, done = _states(bench)
    with db.engine.connect() as conn:
        ids = conn.execute(
            text("SELECT id FROM tasks WHERE project_id = :p AND state_category = 'started' "
                 "AND archived_at IS NULL AND deleted_at IS NULL AND NOT is_draft LIMIT :n"),
            {"p": project, "n": runs},
        ).scalars().all()  # fmt: skip
        mine, others, total = [], [], []
        for task_id in ids:
            plan = conn.execute(
                text("EXPLAIN (ANALYZE, FORMAT JSON) UPDATE tasks SET state_id = :s, "
                     "state_category = 'completed', completed_at = now() AT TIME ZONE 'UTC' "
                     "WHERE id = :t"),
                {"s": done, "t": task_id},
            ).scalar()  # fmt: skip
            conn.rollback()
            found = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
            times = {t["Trigger Name"]: t["Time"] for t in found.get("Triggers", [])}
            ours = sum(v for k, v in times.items() if k.startswith("task_time_counts"))
            mine.append(ours)
            others.append(sum(times.values()) - ours)
            total.append(found["Execution Time"])
    return (
        f"completing a started task, the UPDATE alone (EXPLAIN ANALYZE, {len(ids)} rolled "
        f"back, median ms): {statistics.median(total):.3f} with its triggers, of which "
        f"task_time_counts' {statistics.median(mine):.3f} and the other rollups' "
        f"{statistics.median(others):.3f}"
    )


def _states(bench):
    from sqlalchemy import select

    from workspace.core.models import Project, State
    from workspace.extensions import db

    project = db.session.scalar(
        select(Project.id).where(Project.org_id == bench.org_id).order_by(Project.name).limit(1)
    )
    found = [
        db.session.scalar(
            select(State.id).where(State.project_id == project, State.category == category)
        )
        for category in ("started", "completed")
    ]
    return project, *found


def _write_latency(bench, states, runs: int) -> list[list[float]]:
    """ms of each of ``runs`` creates, starts and completes: on SQLite the process's
    CPU time, which holds the whole write (the database runs in the process) and not
    the other jobs on the machine; on PostgreSQL the time on the clock."""
    from workspace.extensions import db

    clock = time.process_time if db.engine.dialect.name == "sqlite" else time.perf_counter
    project, started, completed = states
    base = f"/api/v1/orgs/{bench.org_id}"
    steps = ((None, 201), (started, 200), (completed, 200))
    samples: list[list[float]] = [[] for _ in steps]
    for i in range(runs):
        task_id = None
        for times, (state, status) in zip(samples, steps, strict=True):
            began = clock()
            if state is None:
                resp = bench.client.post(
                    f"{base}/projects/{project}/tasks",
                    json={"title": f"bench time write {i}", "priority": "high"},
                    headers=bench.headers,
                )
            else:
                resp = bench.client.patch(
                    f"{base}/tasks/{task_id}", json={"state_id": str(state)}, headers=bench.headers
                )
            times.append((clock() - began) * 1000)
            assert resp.status_code == status, resp.get_data(as_text=True)
            task_id = resp.get_json()["id"]
    return samples


def _repair(bench) -> None:
    """The org's rollups rewritten where the writes without triggers left them wrong."""
    from workspace.analytics import consistency
    from workspace.extensions import db

    # Only the rollups this database has: data kept from before a later migration
    # lacks that migration's tables.
    tables = set(inspect(db.engine).get_table_names())
    kept = consistency.ROLLUPS
    consistency.ROLLUPS = tuple(r for r in kept if r.table.name in tables)
    try:
        check = consistency.verify(bench.org_id, repair=True)
    finally:
        consistency.ROLLUPS = kept
    db.session.commit()
    print(
        f"  triggers back; the writes without them repaired: {check.missing} missing, "
        f"{check.extra} extra, {check.wrong} wrong buckets",
        flush=True,
    )


def main() -> None:
    run("analytics_time.py", "bench-time-", measure)


if __name__ == "__main__":
    main()
