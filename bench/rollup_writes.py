"""Write cost of issue 28's rollups together (docs/analytics.md#maintained-rollups):
creating a task, starting it and completing it through the API with every trigger
and without the flow and cycle-time triggers of migrations 0021 and 0028 and task_time_counts'
of migration 0023 (dropped in the scratch database, put back after, the org's
rollups then repaired), alternating the two settings round by round so a change in
the machine's load falls on both. Each of bench/flow.py and bench/analytics_time.py
measures only its own migration's triggers.

SQLite: the process's CPU time (the database runs in the process, so it holds the
whole write and not the other jobs) and the clock. PostgreSQL: the clock, and the
server's own account of a completion (EXPLAIN ANALYZE of its UPDATE and its history
INSERT, rolled back): what the two migrations' triggers take of it.

    .venv/bin/python bench/rollup_writes.py --keep /tmp/flowbench --reuse   # kept data
"""

from __future__ import annotations

import json
import statistics
import time
import types
import uuid

import analytics_time
from analytics_time import WRITE_GROWTH, _repair, _states, _write_latency
from api_bench import open_api, run
from common import load1, triggers_off
from flow import OWN_TRIGGERS
from sqlalchemy import text

ROUNDS = 6
RUNS = 7  # writes per step, setting, clock and round
STEPS = ("create", "start", "complete")
#: Migrations 0021 and 0028's triggers by prefix (bench/flow.py's), 0023's by name.
PREFIXES = (*OWN_TRIGGERS, "task_time_counts_on_")


def _ours(conn) -> tuple[str, ...]:
    """The names of the two migrations' triggers this database has."""
    if conn.dialect.name == "postgresql":
        sql = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    return tuple(sorted(n for (n,) in conn.execute(text(sql)) if n.startswith(PREFIXES)))


def _clock_latency(bench, states, runs: int) -> list[list[float]]:
    """:func:`analytics_time._write_latency` on the clock on SQLite too: its module's
    ``time`` swapped for the block, so the writes are exactly the ones the CPU figure
    times."""
    kept = analytics_time.time
    analytics_time.time = types.SimpleNamespace(
        process_time=time.perf_counter, perf_counter=time.perf_counter
    )
    try:
        return _write_latency(bench, states, runs)
    finally:
        analytics_time.time = kept


def _without_worker() -> None:
    """Apps made from here on without the embedded job worker: its heartbeats and
    sweeps run in this process (its CPU time) and take SQLite's write lock, noise on
    both settings that the writes measured do not need."""
    import workspace

    made = workspace.create_app
    if getattr(made, "bench_no_worker", False):
        return

    def create_app(config=None):
        return made({**(config or {}), "JOBS_EMBEDDED_WORKER": False})

    create_app.bench_no_worker = True
    workspace.create_app = create_app


def _check(bench) -> str:
    """The org's rollups against a scan after the repair (nothing rewritten)."""
    from workspace.analytics import consistency
    from workspace.extensions import db

    check = consistency.verify(bench.org_id)
    db.session.rollback()
    wrong = check.missing + check.extra + check.wrong
    return f"rollups after the repair: {'exact' if not wrong else f'MISS, {wrong} buckets differ'}"


def measure(url: str, instance: str, _runs: int) -> list[str]:
    from workspace.extensions import db

    _without_worker()
    bench = open_api(url, instance, "rollup writes")
    lines = [f"{bench.version}; biggest org {bench.rows:,} tasks"]
    with bench.app.app_context():
        with db.engine.connect() as conn:
            names = _ours(conn)
        sets = {p: sum(n.startswith(p) for n in names) for p in PREFIXES}
        if not all(sets.values()):
            lines.append(f"MISS: the data lacks some of the triggers measured: {sets}")
            print("  " + lines[-1], flush=True)
            bench.close()
            return lines
        sqlite = db.engine.dialect.name == "sqlite"
        clocks = {"CPU": _write_latency, "clock": _clock_latency} if sqlite else {
            "clock": _write_latency
        }  # fmt: skip
        samples = {(c, s): [[], [], []] for c in clocks for s in ("with", "without")}
        states = _states(bench)
        _write_latency(bench, states, 3)  # warm the caches
        loads = [load1()]
        try:
            for i in range(ROUNDS):
                # with/without, then without/with: neither always runs first
                for setting in ("with", "without")[:: 1 if i % 2 == 0 else -1]:
                    with triggers_off(names if setting == "without" else ()):
                        for clock, latency in clocks.items():
                            for times, new in zip(
                                samples[clock, setting],
                                latency(bench, states, RUNS),
                                strict=True,
                            ):
                                times.extend(new)
                loads.append(load1())
        finally:
            _repair(bench)
        db.session.commit()
        checked = _check(bench)
        if not sqlite:
            explained = _trigger_time(bench, names)
    counts = ", ".join(f"{p}*: {n}" for p, n in sets.items())
    lines.append(
        f"{len(names)} triggers of 0021, 0023 and 0028 ({counts}); "
        f"{ROUNDS} alternating rounds, median of {ROUNDS * RUNS} per step, ms; "
        f"load {min(loads):.1f}-{max(loads):.1f}"
    )
    for clock in clocks:
        with_, without = (
            [statistics.median(t) for t in samples[clock, s]] for s in ("with", "without")
        )
        growth = [a / b - 1 for a, b in zip(with_, without, strict=True)]
        verdict = "within" if max(growth) <= WRITE_GROWTH else "OVER"
        lines.append(
            f"{clock}: " + "; ".join(
                f"{step} {a:.1f} vs {b:.1f} ({g * 100:+.0f}%)"
                for step, a, b, g in zip(STEPS, with_, without, growth, strict=True)
            ) + f" -- {verdict} the {WRITE_GROWTH:.0%} target"
        )  # fmt: skip
    if not sqlite:
        lines.append(explained)
    lines.append(checked)
    for line in lines[1:]:
        print("  " + line, flush=True)
    bench.close()
    return lines


def _trigger_time(bench, names: tuple[str, ...], runs: int = 40) -> str:
    """Median ms of a completion's two statements (the task's UPDATE and its state
    history INSERT, as the service writes them) by EXPLAIN ANALYZE, rolled back: the
    whole, the two migrations' triggers and the other rollups'."""
    from workspace.extensions import db

    project, _, done = _states(bench)
    ours, others, total = [], [], []
    with db.engine.connect() as conn:
        ids = conn.execute(
            text("SELECT id FROM tasks WHERE project_id = :p AND state_category = 'started' "
                 "AND archived_at IS NULL AND deleted_at IS NULL AND NOT is_draft LIMIT :n"),
            {"p": project, "n": runs},
        ).scalars().all()  # fmt: skip
        for task_id in ids:
            statements = (
                ("UPDATE tasks SET state_id = :s, state_category = 'completed', "
                 "completed_at = now() AT TIME ZONE 'UTC' WHERE id = :t"),
                ("INSERT INTO task_activity (id, org_id, task_id, field, old_category, "
                 "new_category, created_at) VALUES (:a, :o, :t, 'state', 'started', "
                 "'completed', now() AT TIME ZONE 'UTC')"),
            )  # fmt: skip
            params = {"s": done, "t": task_id, "a": uuid.uuid4(), "o": bench.org_id}
            mine = all_ = whole = 0.0
            for sql in statements:
                plan = conn.execute(text(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}"), params).scalar()
                found = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
                times = {t["Trigger Name"]: t["Time"] for t in found.get("Triggers", [])}
                mine += sum(v for k, v in times.items() if k in names)
                all_ += sum(times.values())
                whole += found["Execution Time"]
            conn.rollback()
            ours.append(mine)
            others.append(all_ - mine)
            total.append(whole)
    return (
        f"EXPLAIN ANALYZE of a completion's UPDATE + history INSERT ({len(ids)} rolled "
        f"back, median ms): {statistics.median(total):.3f} in all, of which 0021+0023+0028's "
        f"triggers {statistics.median(ours):.3f} and the other rollups' "
        f"{statistics.median(others):.3f}"
    )


def main() -> None:
    run("rollup_writes.py", "bench-rollup-writes-", measure)


if __name__ == "__main__":
    main()
