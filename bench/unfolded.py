"""Rollups as hot writes leave them before the fold (PostgreSQL, not a test).

Every PostgreSQL writing transaction adds its rollup deltas to a slot of its own (1 to
32, migrations 0036-0038), and the fold (``analytics.fold_slots``, hourly before
migration 0041, every minute since) moves them back into slot 0; until it runs, a read
sums every slot of a bucket. A bulk load puts everything in slot 0, so the read
benchmarks would measure only folded rollups.

:func:`spread` gives the biggest org's buckets ``slots`` rows each, as many writers
at once could leave them in an hour without a fold, at most:

- the rollups keyed by what a task is (state, priority, assignee, due date, cycle and
  module: ``task_counts``, ``task_totals``, ``task_assignee_counts``,
  ``task_due_counts``, ``task_plan_counts``): every bucket, since a move can take a
  task out of any of them;
- the rollups keyed by when something happened (the hour, day or week of a change,
  a completion or a creation): the latest bucket of each, since a write adds to the
  present (a backdated write, rare, would add to an older one).

Each slot row gets a small signed share (some negative, as a bucket a writer took a
task out of has) and slot 0 keeps the rest, so every bucket still sums to what it did
and the benches' answer checks stay exact.

:func:`hot_minute` leaves what real writers do instead: connections moving tasks for
a period with no fold. The read benches take either (``--unfolded-slots``,
``--hot-seconds``); run on its own, this script times the fold with nothing to fold
and after each, and then the writers of a minute with a fold halfway through:

    python bench/unfolded.py --keep /tmp/b [--slots 32] [--hot-seconds 60]

on data a read bench kept (``bench/analytics.py --keep /tmp/b --backends postgresql``).
"""

from __future__ import annotations

import time

from sqlalchemy import text


def _create_app(url: str, instance: str):
    import os

    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app

    return create_app({"SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})


#: The rollups keyed by a moment: the column, and what else a latest bucket is per.
WHEN = {
    "task_done_counts": ("hour_start", ()),
    "task_completed_days": ("completed_on", ()),
    "task_time_counts": ("starts_at", ("grain",)),
    "task_cycle_weeks": ("week", ()),
    "task_flow_hours": ("hour", ()),
    "task_flow_days": ("day", ()),
}


def _hot(name: str) -> str:
    """SQL: the rows of ``name`` (the biggest org's, slot 0) that an hour of writes
    would have spread."""
    rows = "slot = 0 AND org_id = :org"
    if name not in WHEN:
        return rows
    column, per = WHEN[name]
    same = "".join(f" AND latest.{c} = {name}.{c}" for c in per)
    return (
        f"{rows} AND {column} = (SELECT max(latest.{column}) FROM {name} AS latest "
        f"WHERE latest.org_id = :org{same})"
    )


def spread(url: str, instance: str, slots: int) -> str:
    """The biggest org's rollup buckets that an hour of hot writes touches spread over
    ``slots`` slots (0 to slots - 1); what was unfolded before is folded first, so a
    reused database starts from one row a bucket. Returns a line with the rows."""
    from common import biggest_org

    from workspace.analytics.slot_fold import SLOTTED, SUMMED, fold
    from workspace.extensions import db

    app = _create_app(url, instance)
    with app.app_context():
        if db.engine.dialect.name != "postgresql" or slots < 2:
            return "unfolded slots: none (SQLite has one writer and only slot 0)"
        if not 2 <= slots <= 32:
            raise SystemExit("--unfolded-slots: 2 to 32 (a bucket has at most 32 slots)")
        org_id = biggest_org()[0].id
        fold()
        before = after = 0
        # Slots 1 .. slots-1 get a bucket's share, +1 on odd and -1 on even slots; slot
        # 0 keeps the rest, so the bucket's sum is unchanged.
        others = slots - 1
        odd_minus_even = (others + 1) // 2 - others // 2
        started = time.perf_counter()
        for table in SLOTTED:
            name = table.name
            keys = [c.name for c in table.c if c.name != "slot" and c.name not in SUMMED]
            values = [c.name for c in table.c if c.name in SUMMED]
            count = text(f"SELECT count(*) FROM {name} WHERE org_id = :org")
            before += db.session.execute(count, {"org": org_id}).scalar_one()
            shares = ", ".join(
                f"{v} / {slots} + CASE WHEN s % 2 = 1 THEN 1 ELSE -1 END" for v in values
            )
            db.session.execute(
                text(
                    f"INSERT INTO {name} ({', '.join(keys)}, slot, {', '.join(values)}) "
                    f"SELECT {', '.join(keys)}, s, {shares} FROM {name} "
                    f"CROSS JOIN generate_series(1, {others}) AS s WHERE {_hot(name)}"
                ),
                {"org": org_id},
            )
            rest = ", ".join(
                f"{v} = {v} - {others} * ({v} / {slots}) - {odd_minus_even}" for v in values
            )
            # The same rows as the INSERT read: slot 0's, which it did not change.
            db.session.execute(
                text(f"UPDATE {name} SET {rest} WHERE {_hot(name)}"), {"org": org_id}
            )
            after += db.session.execute(count, {"org": org_id}).scalar_one()
        db.session.commit()
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            for table in SLOTTED:
                conn.execute(text(f"VACUUM ANALYZE {table.name}"))
        took = time.perf_counter() - started
        db.engine.dispose()
    return (
        f"unfolded slots: the biggest org's rollup buckets an hour of writes touches "
        f"spread over {slots} slots, {before:,} rows became {after:,} ({took:.0f}s)"
    )


def hot_minute(
    url: str,
    instance: str,
    seconds: float,
    writers: int,
    rate: float = 0,
    fold_at: float | None = None,
) -> str:
    """``writers`` connections moving the biggest org's tasks, each through the next
    state of its project, for ``seconds``, each change committed: the history INSERT
    and the task UPDATE a ``PATCH`` makes, with every trigger, and no fold. What they
    leave unfolded is what a read meets just before a fold of that period. Without the
    app's Python the writes come faster than through the API, so this overstates it,
    unless ``rate`` caps the writes a second (all writers together). With ``fold_at``,
    a fold runs that many seconds in, beside the writers, and the line says how long
    the writes took while it ran (a writer that meets a row the fold took waits for
    its commit)."""
    import random
    import threading

    import psycopg
    from common import move_state
    from sqlalchemy.engine import make_url

    _fold(url, instance)  # from one row a bucket, as right after a fold
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        org_id = conn.execute(
            "SELECT org_id FROM tasks GROUP BY org_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]
        tasks = [
            row[0]
            for row in conn.execute(
                "SELECT id FROM tasks WHERE org_id = %s AND deleted_at IS NULL AND "
                "archived_at IS NULL AND NOT is_draft AND state_category <> 'triage' "
                "ORDER BY random() LIMIT 20000",
                (org_id,),
            )
        ]
        states: dict = {}
        for project, state, category in conn.execute(
            "SELECT project_id, id, category FROM states WHERE category <> 'triage' AND "
            "project_id IN (SELECT id FROM projects WHERE org_id = %s) ORDER BY position",
            (org_id,),
        ):
            states.setdefault(project, []).append((state, category))
    deadline = time.monotonic() + seconds
    done = [0] * writers
    took: list[tuple[float, float]] = []  # (when the write ended, how long it took)
    folding: list[float] = []

    def write(n: int) -> None:
        mine = tasks[n::writers]
        random.shuffle(mine)
        with psycopg.connect(dsn) as conn:
            began = time.monotonic()
            while True:
                now = time.monotonic()
                if now > deadline:
                    return
                if rate and done[n] > (now - began) * rate / writers:
                    time.sleep(writers / rate)
                    continue
                task = mine[done[n] % len(mine)]
                started = time.monotonic()
                project, old, old_category = conn.execute(
                    "SELECT project_id, state_id, state_category FROM tasks WHERE id = %s "
                    "FOR UPDATE",
                    (task,),
                ).fetchone()
                cycle = states[project]
                ids = [s for s, _ in cycle]
                new, category = cycle[(ids.index(old) + 1) % len(cycle)] if old in ids else cycle[0]
                move_state(conn, org_id, task, old, old_category, new, category)
                conn.commit()
                ended = time.monotonic()
                took.append((ended, ended - started))
                done[n] += 1

    def fold_beside() -> None:
        time.sleep(fold_at)
        folding.append(time.monotonic())
        folding.append(_fold(url, instance)[1])
        folding.append(time.monotonic())

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    if fold_at is not None:
        threads.append(threading.Thread(target=fold_beside))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with psycopg.connect(dsn) as conn:
        from workspace.analytics.slot_fold import SLOTTED

        unfolded = {
            t.name: conn.execute(f"SELECT count(*) FROM {t.name} WHERE slot <> 0").fetchone()[0]
            for t in SLOTTED
        }
    # As autovacuum would after that many writes (this machine's PostgreSQL runs
    # without it): the dead rows of the tasks and the history are not the slots' cost.
    with psycopg.connect(dsn, autocommit=True) as conn:
        for name in ("tasks", "task_activity", *unfolded):
            conn.execute(f"VACUUM ANALYZE {name}")
    top = ", ".join(f"{k} {v:,}" for k, v in sorted(unfolded.items(), key=lambda kv: -kv[1])[:4])
    ms = sorted(t * 1000 for _, t in took)
    latency = (
        f"; a write took p50 {ms[len(ms) // 2]:.0f} ms, p99 {ms[int(len(ms) * 0.99)]:.0f}, "
        f"max {ms[-1]:.0f}"
    )
    if folding:
        began, fold_s, ended = folding
        during = [t * 1000 for at, t in took if began <= at <= ended + 0.5]
        latency += (
            f"; a fold {fold_at:g} s in took {fold_s:.1f} s, the {len(during)} writes "
            f"ending while it ran took up to {max(during, default=0):.0f} ms"
        )
    return (
        f"hot writes left unfolded: {writers} writers"
        + (f" at {rate:g} writes/s" if rate else "")
        + f", {seconds:.0f} s, {sum(done):,} state "
        f"changes of the biggest org's tasks, {sum(unfolded.values()):,} slot rows ({top}, ...)"
        + latency
    )


def _fold(url: str, instance: str) -> tuple[int, float]:
    """The fold, as the job runs it (a commit a table): slot rows moved, seconds."""
    from workspace.analytics.slot_fold import fold
    from workspace.extensions import db

    app = _create_app(url, instance)
    with app.app_context():
        started = time.perf_counter()
        moved = fold(after_each=db.session.commit)
        took = time.perf_counter() - started
        db.engine.dispose()
    return sum(moved.values()), took


def fold_time(url: str, instance: str) -> str:
    """The fold of what writers or :func:`spread` left, timed, and the rows it moved."""
    moved, took = _fold(url, instance)
    return f"the fold afterwards: {moved:,} slot rows into slot 0 in {took:.1f}s"


def main() -> None:
    import argparse
    from pathlib import Path

    from common import machine

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", required=True, help="A read bench's --keep directory.")
    parser.add_argument("--slots", type=int, default=32)
    parser.add_argument("--hot-seconds", type=float, default=60)
    parser.add_argument("--hot-writers", type=int, default=8)
    parser.add_argument("--hot-rate", type=float, default=0)
    args = parser.parse_args()
    work = Path(args.keep)
    name = (work / "pg-database").read_text().strip()
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    instance = str(work / "instance-postgresql")
    print(f"bench/unfolded.py: {machine()}", flush=True)
    print("  nothing to fold: " + fold_time(url, instance), flush=True)
    print("  nothing to fold, again: " + fold_time(url, instance), flush=True)
    print("  " + spread(url, instance, args.slots), flush=True)
    print("  " + fold_time(url, instance), flush=True)
    hot = (url, instance, args.hot_seconds, args.hot_writers, args.hot_rate)
    print("  " + hot_minute(*hot), flush=True)
    print("  " + fold_time(url, instance), flush=True)
    print("  " + hot_minute(*hot, fold_at=args.hot_seconds / 2), flush=True)
    print("  " + fold_time(url, instance), flush=True)


if __name__ == "__main__":
    main()
