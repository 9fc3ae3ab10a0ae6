"""Analytics benchmark (not a test): the API against the best hand-written SQL and DuckDB.

Loads N tasks (default 1,000,000) with ``flask bench-data`` into a fresh SQLite file
and a fresh PostgreSQL database. Then, for the biggest org (60% of the rows), whole
org, each figure three ways in the same run:

- **API**: the HTTP endpoint through the Flask test client (bearer token, JSON out);
- **best SQL**: bench/best_sql.py, the statement a DBA would write for the same numbers
  in a different shape from the product's, so that a bad plan shows as API/best > 1.2;
- **DuckDB**: the same statements over the org's rows copied into an in-memory DuckDB,
  the columnar ceiling.

The answers of the three are compared (``check``: ok, or what differs). Each line
carries the 1-minute load average taken right before it. Then the latency of task
writes through the API (create, start, complete), with the rollup triggers and,
as the baseline, without them (every trigger on the tasks and the history, the
completions rollup's included), and optionally (``--clients``) overview throughput
under gunicorn -w 2. The dashboard page painted in a browser: bench/paint.py, which
can ``--reuse`` what ``--keep`` kept here.

    .venv/bin/python bench/analytics.py                  # 1M tasks, both databases
    .venv/bin/python bench/analytics.py --tasks 200000   # a quick check
    .venv/bin/python bench/analytics.py --keep /tmp/bench            # keep the data
    .venv/bin/python bench/analytics.py --keep /tmp/bench --reuse    # measure again
    .venv/bin/python bench/analytics.py --backends postgresql --clients 8

PostgreSQL: ``--pg-url`` names a server database used to CREATE/DROP the scratch
database (default postgresql://postgres@127.0.0.1:5432/postgres).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import best_sql
import duck
import write_budget
from common import (
    biggest_org,
    database_version,
    header,
    load1,
    median_ms,
    prepare,
    save_twelve,
    scratch_database,
    unfolded,
    unfolded_argument,
)
from sqlalchemy import func, select, text

#: API path (under /api/v1/orgs/<org>/) and query per figure.
ENDPOINTS = {
    "overview": ("analytics/overview", {}),
    "workload": ("analytics/workload", {}),
    "pivot": ("analytics/pivot", {"row": "assignee", "col": "status"}),
    "forecast": ("analytics/forecast", {"weeks": "8"}),
    "custom": (
        "analytics/custom",
        {"metric": "open", "dimension": "assignee", "filter": "priority IN (high, urgent)"},
    ),
    "scatter": ("analytics/scatter", {"dimension": "cycle"}),
    "flow": ("analytics/flow", {}),
    "dashboard": (None, {}),  # the 12-widget dashboard's compute, made below
}
LABELS = {
    "pivot": "pivot (assignee x status)",
    "forecast": "forecast (8 weeks)",
    "custom": "custom (open by assignee, PQL)",
    "scatter": "scatter (cycle)",
    "dashboard": "12-widget dashboard",
}
TARGET_MS = 50  # at 1M tasks, every figure (docs/analytics.md#benchmark)
TARGET_RATIO = 1.2  # API within 1.2x of the best SQL


class Bench:
    """One backend: the app, a token of the biggest org's owner, the scratch rows."""

    def __init__(self, url: str, instance: str) -> None:
        os.environ["WORKSPACE_INSTANCE"] = instance
        from workspace import create_app

        self.url = url
        # No job worker: its minute's fold would land in one round of the write budget,
        # and it outlived the scratch database (bench/unfolded.py times the fold).
        self.app = create_app(
            {
                "SQLALCHEMY_DATABASE_URI": url,
                "RATELIMIT_ENABLED": False,
                "JOBS_EMBEDDED_WORKER": False,
            }
        )
        self.client = self.app.test_client()

    def setup(self) -> None:
        from workspace.auth.api_tokens import create_token
        from workspace.core.models import State, Task, TaskActivity
        from workspace.extensions import db

        with self.app.app_context():
            self.dialect = db.engine.dialect.name
            org, self.org_tasks, owner, self.project_id = biggest_org()
            self.org_id, self.owner_id = org.id, owner.id
            _, self.token = create_token(owner, org, f"bench {uuid.uuid4().hex[:6]}")
            self.started_state, self.completed_state = (
                db.session.scalar(
                    select(State.id).where(
                        State.project_id == self.project_id, State.category == category
                    )
                )
                for category in ("started", "completed")
            )
            # top_n 50: the most there is (the rest of a chart is "Other").
            dash = save_twelve(org, owner.id, self.project_id, top_n=50)
            self.dashboard_id = dash.id
            db.session.commit()
            self.context = best_sql.Context(
                dialect=self.dialect,
                org_id=self.org_id,
                tz=best_sql.ZoneInfo(org.timezone or "UTC"),
                first_project=self.project_id,
            )
            with db.engine.connect() as conn:
                self.version = database_version(conn)
            self.rows = {
                "tasks": db.session.scalar(select(func.count()).select_from(Task)),
                "activity": db.session.scalar(select(func.count()).select_from(TaskActivity)),
            }

    def teardown(self) -> None:
        from workspace.analytics.dashboards import service
        from workspace.analytics.dashboards.models import Dashboard
        from workspace.extensions import db

        with self.app.app_context():
            dash = db.session.get(Dashboard, self.dashboard_id)
            service.delete_dashboard(dash, dash.owner_id)
            db.session.commit()
            db.engine.dispose()

    def api(self, name: str):
        path, query = ENDPOINTS[name]
        if name == "dashboard":
            path = f"dashboards/{self.dashboard_id}/compute"
        url = f"/api/v1/orgs/{self.org_id}/{path}"
        headers = {"Authorization": f"Bearer {self.token}"}

        def call():
            resp = self.client.get(url, query_string=query, headers=headers)
            assert resp.status_code == 200, resp.get_data(as_text=True)
            return resp.get_json()

        return call

    def write_latency(self, runs: int) -> list[list[float]]:
        """ms of each of ``runs`` creates of an assigned task, moves of it to a started
        state and completions (the write that the history's and workload's rollups
        follow), per step."""
        base = f"/api/v1/orgs/{self.org_id}"
        headers = {"Authorization": f"Bearer {self.token}"}
        steps = ((None, 201), (self.started_state, 200), (self.completed_state, 200))
        samples: list[list[float]] = [[] for _ in steps]
        for i in range(runs):
            task_id = None
            for times, (state, status) in zip(samples, steps, strict=True):
                began = time.perf_counter()
                if state is None:
                    resp = self.client.post(
                        f"{base}/projects/{self.project_id}/tasks",
                        json={"title": f"bench write {i}", "priority": "high",
                              "assignee_id": str(self.owner_id)},
                        headers=headers,
                    )  # fmt: skip
                else:
                    resp = self.client.patch(
                        f"{base}/tasks/{task_id}", json={"state_id": str(state)}, headers=headers
                    )
                took = (time.perf_counter() - began) * 1000
                assert resp.status_code == status, resp.get_data(as_text=True)
                task_id = resp.get_json()["id"]
                times.append(took)
        return samples


def measure(url: str, instance: str, runs: int, use_duckdb: bool) -> list[str]:
    from workspace.extensions import db

    bench = Bench(url, instance)
    bench.setup()
    lines = [
        f"{bench.version}; tasks {bench.rows['tasks']:,}, activity {bench.rows['activity']:,}; "
        f"biggest org {bench.org_tasks:,} tasks; median of {runs} warm runs, ms"
    ]
    print("  " + lines[0], flush=True)
    with bench.app.app_context(), db.engine.connect() as conn:

        def run(sql, params):
            return conn.execute(text(sql), params).all()

        duckdb_run = None
        if use_duckdb:
            copy, took = duck.copy_org(conn, bench.org_id)
            duckdb_run = duck.runner(copy)
            lines.append(f"DuckDB {duck.duckdb.__version__}: org copied in {took:.0f}s")
            print("  " + lines[-1], flush=True)
        conn.rollback()
        lines += [
            "| figure | load | API | best SQL (shape) | DuckDB | API/best | best/DuckDB | notes |",
            "|---|---|---|---|---|---|---|---|",
        ]
        shapes = best_sql.candidates(bench.context)
        for name, figure in best_sql.FIGURES.items():
            load = load1()
            api_call = bench.api(name)
            try:
                api_ms = median_ms(api_call, runs)
                answer = best_sql.from_api(name, api_call())
                problems = []
            except AssertionError as exc:  # a failing endpoint is a finding, not the end
                api_ms, answer, problems = float("nan"), None, ["API failed"]
                print(f"  {name}: the API failed: {str(exc)[:200]}", flush=True)
            # Answers compared first, right after the API's: figures with a moving
            # window (30 days, "now") drift while the timing loops run.
            duck_context = replace(bench.context, dialect="duckdb")
            if (
                duckdb_run
                and answer
                and not best_sql.same(name, answer, figure(duck_context, duckdb_run))
            ):
                problems.append("DuckDB differs")
            # Every shape's answer before any timing: the window moves while a loop of
            # 1-second scans runs, and at 10M tasks a completion crosses its edge every
            # few seconds.
            agreed = []
            for label, context, fn in shapes[name]:

                def hand(context=context, fn=fn):
                    result = fn(context, run)
                    conn.rollback()  # each run its own snapshot, as each request has
                    return result

                try:
                    if answer is not None and not best_sql.same(name, answer, hand()):
                        problems.append(f"{label} differs")
                    else:
                        agreed.append((label, hand))
                except Exception as exc:  # a shape that fails is reported, not fatal
                    conn.rollback()
                    problems.append(f"{label} failed ({type(exc).__name__})")
            timed = [(median_ms(hand, runs), label) for label, hand in agreed]
            best_ms, best_label = min(timed) if timed else (float("nan"), "-")
            duck_ms = None
            if duckdb_run:
                duck_ms = median_ms(lambda c=duck_context, f=figure: f(c, duckdb_run), runs)
            ratio = api_ms / best_ms
            if ratio > TARGET_RATIO:
                problems.append(f"API > {TARGET_RATIO}x best")
            if api_ms > TARGET_MS:
                problems.append(f"API > {TARGET_MS} ms")
            if duck_ms is not None and api_ms >= duck_ms:
                problems.append("API not below DuckDB")
            line = (
                f"| {LABELS.get(name, name)} | {load:.1f} | {api_ms:.0f} | {best_ms:.0f} "
                f"({best_label}) | "
                + (f"{duck_ms:.0f}" if duck_ms is not None else "-")
                + f" | {ratio:.2f}x | "
                + (f"{best_ms / duck_ms:.1f}x" if duck_ms else "-")
                + f" | {'; '.join(problems) or 'ok'} |"
            )
            lines.append(line)
            print("  " + line, flush=True)
    line = write_budget.write_growth(bench)
    lines.append(line)
    print("  " + line, flush=True)
    bench.teardown()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--no-duckdb", action="store_true", help="Skip the DuckDB column.")
    parser.add_argument(
        "--clients",
        type=int,
        default=0,
        help="Also measure overview throughput with this many concurrent clients "
        "against gunicorn -w 2 (bench/throughput.py).",
    )
    parser.add_argument(
        "--keep",
        help="Directory for the SQLite file and instance; the "
        "PostgreSQL database is kept too and its name written there.",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="With --keep: measure the data a previous run left, no reload.",
    )
    unfolded_argument(parser)
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-analytics-"))
    work.mkdir(parents=True, exist_ok=True)
    report = [header("analytics.py", args)]
    print(report[0], flush=True)
    for backend in args.backends.split(","):
        print(f"{backend}:", flush=True)
        instance = work / f"instance-{backend}"
        instance.mkdir(exist_ok=True)
        reuse = bool(args.keep and args.reuse)
        with scratch_database(backend, work, args.pg_url, bool(args.keep), reuse) as (url, ok):
            loaded = "" if ok else f"; loaded in {prepare(url, args.tasks, str(instance)):.0f}s"
            with unfolded(args, url, str(instance)):
                lines = measure(url, str(instance), args.runs, not args.no_duckdb)
            if args.clients:
                import throughput

                lines.append(throughput.measure(url, str(instance), args.clients))
                print("  " + lines[-1], flush=True)
        report += ["", f"{backend}{loaded}: {lines[0]}", *lines[1:]]
    print("\n" + "\n".join(report))


if __name__ == "__main__":
    main()
