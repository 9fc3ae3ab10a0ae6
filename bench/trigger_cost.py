"""What the rollup triggers cost one state change, on one connection (issue 31): the
two statements of a ``PATCH`` that they hang on (the history INSERT and the task
UPDATE, after the row lock), each change committed, with every trigger on the tasks
and the history and with none, in alternating rounds on PostgreSQL.

    python bench/trigger_cost.py [--writes 500] [--rounds 3] [--tasks 48] [--revision REV]

``bench/hot_writes.py`` measures the same triggers under many writers through the API,
where the app's Python and a busy machine blur a difference of a millisecond; this one
leaves them out. Printed: the median wall time and the backend's CPU per write in each
mode, their ratio, and each trigger function's own time per write
(``track_functions = 'pl'``). The tables are vacuumed and analyzed first, as
autovacuum keeps a production database (docs/scaling.md#hot-writes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from common import machine, move_state, triggers_off
from hot_writes import _function_times, _vacuum_analyze, _verify, scratch_org


def _backend_cpu(pid: int) -> float:
    """Seconds of CPU the backend ``pid`` has used (this machine's /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _round(conn, org_id: str, cycle: list[str], tasks: list[str], writes: int) -> dict:
    """``writes`` state changes, each task moved to the next state of ``cycle``."""
    categories = dict(
        conn.execute("SELECT id::text, category FROM states WHERE id = ANY(%s::uuid[])", (cycle,))
    )
    pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    conn.commit()
    took = []
    cpu = _backend_cpu(pid)
    for i in range(writes):
        task = tasks[i % len(tasks)]
        started = time.perf_counter()
        old, old_category = conn.execute(
            "SELECT state_id::text, state_category FROM tasks WHERE id = %s FOR UPDATE", (task,)
        ).fetchone()
        new = cycle[(cycle.index(old) + 1) % len(cycle)] if old in cycle else cycle[0]
        move_state(conn, org_id, task, old, old_category, new, categories[new])
        conn.commit()
        took.append(time.perf_counter() - started)
    return {
        "ms": statistics.median(took) * 1000,
        "cpu_ms": (_backend_cpu(pid) - cpu) * 1000 / writes,
    }


def main() -> None:
    import psycopg
    from sqlalchemy import make_url

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=500, help="state changes per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each mode")
    parser.add_argument(
        "--tasks", type=int, default=48, help="tasks moved in turn (fewer: longer histories)"
    )
    parser.add_argument(
        "--revision", default="head", help="migrate the scratch database only this far (A/B)"
    )
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                        "postgresql://postgres@127.0.0.1:5432/test"))  # fmt: skip
    args = parser.parse_args()
    print(f"bench/trigger_cost.py --writes {args.writes} --tasks {args.tasks} "
          f"--revision {args.revision}: {machine()}")  # fmt: skip
    with scratch_org(args.pg, args.revision, "trigger-cost-", [8]) as (
        url,
        app,
        org_id,
        _,
        cycle,
        tasks,
    ):
        mine = [task for writer in tasks for task in writer][: args.tasks]
        plain = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        rounds: dict[str, list[dict]] = {"triggers": [], "none": []}
        spent: dict[str, float] = {}
        with app.app_context():
            for mode in ("triggers", "none") * args.rounds:
                _vacuum_analyze(url)
                with psycopg.connect(plain) as conn:
                    _round(conn, org_id, cycle, mine, 50)  # warm: plans, function compiles
                    if mode == "none":
                        with triggers_off(None):
                            rounds[mode].append(_round(conn, org_id, cycle, mine, args.writes))
                        _verify(org_id, repair=True)
                        continue
                    before = _function_times(url)
                    rounds[mode].append(_round(conn, org_id, cycle, mine, args.writes))
                time.sleep(1.2)  # its backend, closed above, reported its function times on exit
                for name, (_, ms) in _function_times(url).items():
                    spent[name] = spent.get(name, 0.0) + ms - before.get(name, (0, 0.0))[1]
                assert _verify(org_id, repair=False), "rollups wrong after a round"
    _report(rounds, spent, args.writes)


def _report(rounds: dict[str, list[dict]], spent: dict[str, float], writes: int) -> None:
    def median(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in rounds[mode])

    on, off = median("triggers", "ms"), median("none", "ms")
    each = {mode: ", ".join(f"{r['ms']:.2f}" for r in rounds[mode]) for mode in rounds}
    print(f"wall per write, median of rounds: {on:.2f} ms with the triggers, {off:.2f} ms "
          f"without: {on - off:.2f} ms more, ratio {off / on:.2f} "
          f"(rounds {each['triggers']} vs {each['none']})")  # fmt: skip
    cpu_on, cpu_off = median("triggers", "cpu_ms"), median("none", "cpu_ms")
    print(f"backend CPU per write: {cpu_on:.2f} ms vs {cpu_off:.2f} ms")
    done = writes * len(rounds["triggers"])
    top = sorted(spent.items(), key=lambda kv: -kv[1])
    total = sum(spent.values()) / done
    print(f"trigger functions' own time {total:.2f} ms a write: "
          + "; ".join(f"{name} {ms / done:.3f}" for name, ms in top if ms > 0))  # fmt: skip
    print("rollups exact after every round with the triggers")


if __name__ == "__main__":
    main()
