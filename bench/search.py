"""Task search benchmark (docs/search.md#how-fast): the search service over the
biggest org of ``flask bench-data`` (1M tasks by default), p50 and p95 per database
against an independent baseline in the same run: a case-insensitive ``LIKE '%word%'``
scan over titles and descriptions, newest first, as a search without an index would
be written.

``flask bench-data`` loads with the triggers off, so the search index is rebuilt
first when it does not hold every task (timed and printed: it is what migration
0025's backfill does). The bench data's descriptions are empty and its titles come
from 120 phrases, so every word here matches tens of thousands of tasks: the hard
case for ranking (docs/search.md#limits). A share of the tasks gets a description
naming a rarer word ("quokka") so the description path is measured too.

    .venv/bin/python bench/search.py --tasks 1000000 --keep /tmp/searchbench
    .venv/bin/python bench/search.py --keep /tmp/searchbench --reuse   # kept data
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from common import data_arguments, datasets, header, load1

TARGET_MS = 50
#: What people type: a common word, a prefix while typing, two words, a phrase, a
#: word only some descriptions hold, a key, a word nothing holds, a typo.
QUERIES = (
    "login",
    "logi",
    "invoice export",
    '"rate limiter"',
    "quokka",
    "KEY",
    "zyzzyva",
    "lgoin flow",
)
#: Every how-many-th task of the org gets the description with "quokka".
DESCRIBED_EVERY = 500


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _ensure_index(db, text) -> str:
    """Rebuild the search index when the load bypassed its triggers."""
    from workspace.core import search_index

    tasks = db.session.scalar(text("SELECT count(*) FROM tasks"))
    indexed = db.session.scalar(text("SELECT count(*) FROM task_search"))
    if indexed == tasks:
        return f"index holds all {tasks:,} tasks"
    started = time.monotonic()
    search_index.rebuild()
    db.session.commit()
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE task_search"))
    else:
        db.session.execute(text("ANALYZE"))
        db.session.commit()
    return f"index rebuilt for {tasks:,} tasks in {time.monotonic() - started:.0f}s"


def _describe(db, text, org_id) -> None:
    """Give every DESCRIBED_EVERY-th task of the org a description (once): through
    SQL, so the triggers keep the index current as for any write."""
    sqlite = db.engine.dialect.name == "sqlite"
    org = org_id.hex if sqlite else org_id
    done = db.session.scalar(
        text("SELECT count(*) FROM tasks WHERE org_id = :org AND description LIKE '%quokka%'"),
        {"org": org},
    )
    if done:
        return
    db.session.execute(
        text(
            "UPDATE tasks SET description = 'The quokka import stalls on large files.' "
            "WHERE org_id = :org AND sequence % :every = 0"
        ),
        {"org": org, "every": DESCRIBED_EVERY},
    )
    db.session.commit()


def _baseline(db, text, org_id, q: str) -> list:
    """Every word anywhere in the title or description, case-insensitive, newest 20."""
    sqlite = db.engine.dialect.name == "sqlite"
    words = [w for w in q.replace('"', " ").split() if w]
    params: dict = {"org": org_id.hex if sqlite else org_id}
    where = []
    for i, word in enumerate(words):
        params[f"w{i}"] = f"%{word.lower()}%"
        where.append(f"(lower(title) LIKE :w{i} OR lower(description) LIKE :w{i})")
    sql = (
        "SELECT id FROM tasks WHERE org_id = :org AND deleted_at IS NULL "
        f"AND archived_at IS NULL AND {' AND '.join(where)} ORDER BY created_at DESC LIMIT 20"
    )
    return list(db.session.execute(text(sql), params).scalars())


def measure(url: str, instance: str, runs: int) -> list[str]:
    os.environ["DATABASE_URL"] = url
    os.environ["WORKSPACE_INSTANCE"] = instance
    from common import biggest_org
    from sqlalchemy import text

    from workspace import create_app
    from workspace.extensions import db
    from workspace.security.permissions import org_access
    from workspace.tracker.search.service import search_tasks

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    lines: list[str] = []
    with app.app_context():
        lines.append(_ensure_index(db, text))
        org, rows, owner, _ = biggest_org()
        _describe(db, text, org.id)
        access = org_access(org.id, owner)
        key = db.session.execute(
            text("SELECT key FROM task_search WHERE org_id = :org LIMIT 1"),
            {"org": org.id.hex if db.engine.dialect.name == "sqlite" else org.id},
        ).scalar()
        lines[0] = f"biggest org {rows:,} tasks; {lines[0]} (load {load1():.1f})"
        ours: list[float] = []
        theirs: list[float] = []
        for typed in QUERIES:
            q = key if typed == "KEY" else typed
            hits = search_tasks(access, q, 20)  # warm
            db.session.rollback()
            found, base, cpu = [], [], []
            for run in range(runs):
                started, cpu_started = time.perf_counter(), time.process_time()
                hits = search_tasks(access, q, 20)
                found.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
                db.session.rollback()
                if run % 3 == 0:  # the slow baseline a third as often
                    started = time.perf_counter()
                    baseline = _baseline(db, text, org.id, q)
                    base.append((time.perf_counter() - started) * 1000)
                    db.session.rollback()
            ours += found
            theirs += base
            lines.append(
                f"  {q!r:>18}: {len(hits):2d} hits, search p50 {statistics.median(found):6.1f} ms "
                f"p95 {_percentile(found, 0.95):6.1f} ms (this process's CPU p50 "
                f"{statistics.median(cpu):5.1f} ms); LIKE baseline p50 "
                f"{statistics.median(base):7.1f} ms ({len(baseline)} rows)"
            )
    p50, p95 = statistics.median(ours), _percentile(ours, 0.95)
    b50 = statistics.median(theirs)
    verdict = "ok" if p50 < TARGET_MS and p95 < TARGET_MS else "OVER TARGET"
    lines.append(
        f"  all queries: search p50 {p50:.1f} ms, p95 {p95:.1f} ms (target < {TARGET_MS} ms: "
        f"{verdict}); LIKE baseline p50 {b50:.1f} ms, {b50 / p50:.0f}x slower"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_arguments(parser)
    parser.add_argument("--runs", type=int, default=15)
    # The wall times include waiting for the CPU: print the load beside them. On
    # SQLite the search runs in this process, so its CPU time is the search's own.
    args = parser.parse_args()
    report = [header("search.py", args)]
    print(report[0], flush=True)
    for backend, url, instance, _loaded in datasets(args, "bench-search-"):
        lines = measure(url, instance, args.runs)
        print("\n".join(lines), flush=True)
        report += ["", f"{backend}: {lines[0]}", *lines[1:]]
    print("\n" + "\n".join(report))


if __name__ == "__main__":
    sys.exit(main())
