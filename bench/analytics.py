"""Analytics benchmark (not a test): API latency against the best raw SQL.

Loads N tasks (default 1,000,000) with ``flask bench-data`` into a fresh SQLite file
and a fresh PostgreSQL database, then prints for overview, workload, pivot, forecast
and custom chart the median latency through the HTTP API (Flask test client, bearer
token, JSON out) and of one hand-written SQL statement for the same figures, and
their ratio. Whole org (the biggest, ~60% of rows), no project scope.

    .venv/bin/python bench/analytics.py                  # 1M tasks, both databases
    .venv/bin/python bench/analytics.py --tasks 100000   # a quick check
    .venv/bin/python bench/analytics.py --keep /tmp/bench            # keep the data
    .venv/bin/python bench/analytics.py --keep /tmp/bench --reuse    # measure again

PostgreSQL: ``--pg-url`` names a server database used to CREATE/DROP the scratch
database (default postgresql://postgres@127.0.0.1:5432/postgres).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENDPOINTS = {
    "overview": {},
    "workload": {},
    "pivot": {"row": "assignee", "col": "status"},
    "forecast": {"weeks": "8"},
    "custom": {"metric": "open", "dimension": "assignee", "filter": "priority IN (high, urgent)"},
}


def flask(args: list[str], env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "app", *args], cwd=ROOT, env=env, check=True
    )


def prepare(url: str, tasks: int, instance: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "WORKSPACE_INSTANCE": instance}
    started = time.monotonic()
    flask(["db", "upgrade", "heads"], env)
    flask(["bench-data", "--tasks", str(tasks)], env)
    print(f"  loaded {tasks} tasks in {time.monotonic() - started:.0f}s", flush=True)


def raw_queries(dialect: str, org_id: uuid.UUID, today: date, now: datetime) -> dict:
    """The best single statement per endpoint, written by hand for this dialect."""
    false = "0" if dialect == "sqlite" else "false"
    scope = (
        f"t.org_id = :org AND t.state_category != 'triage' AND t.is_draft = {false} "
        "AND t.archived_at IS NULL AND t.deleted_at IS NULL"
    )
    org = org_id.hex if dialect == "sqlite" else org_id
    ts = (
        (lambda d: d.replace(tzinfo=None).isoformat(" "))
        if dialect == "sqlite"
        else (lambda d: d.replace(tzinfo=None))
    )
    figures = [
        "count(*)",
        "count(*) FILTER (WHERE t.state_category = 'completed')",
        "count(*) FILTER (WHERE t.due_date < :today AND t.state_category NOT IN "
        "('completed', 'cancelled'))",
    ]
    for column, values in (
        ("state_category", ["backlog", "unstarted", "started", "completed", "cancelled"]),
        ("priority", ["urgent", "high", "medium", "low", "none"]),
        ("kind", ["task", "bug", "feature", "epic"]),
    ):
        figures += [f"count(*) FILTER (WHERE t.{column} = '{v}')" for v in values]
    monday = today - timedelta(days=today.weekday())
    bounds = [
        datetime.combine(monday - timedelta(weeks=8 - i), datetime.min.time()) for i in range(9)
    ]
    weeks = ", ".join(
        f"count(*) FILTER (WHERE a.created_at >= :b{i} AND a.created_at < :b{i + 1})"
        for i in range(8)
    )
    params = {
        "org": org,
        "today": today.isoformat() if dialect == "sqlite" else today,
        "since": ts(now - timedelta(days=30)),
        **{f"b{i}": ts(b) for i, b in enumerate(bounds)},
    }
    return params, {
        "overview": f"SELECT {', '.join(figures)} FROM tasks t WHERE {scope}",
        "workload": (
            "SELECT w.*, a.name, a.email, a.kind FROM (SELECT t.assignee_id, "
            "count(*) FILTER (WHERE t.state_category != 'completed') AS open, "
            "count(*) FILTER (WHERE t.state_category = 'started') AS in_progress, "
            "count(*) FILTER (WHERE t.state_category = 'completed' AND t.completed_at >= "
            f":since) AS done FROM tasks t WHERE {scope} AND t.assignee_id IS NOT NULL "
            "GROUP BY t.assignee_id) w JOIN accounts a ON a.id = w.assignee_id "
            "ORDER BY w.open DESC, w.in_progress DESC, w.done DESC, a.name"
        ),
        "pivot": (
            "SELECT t.assignee_id, s.name, count(*) FROM tasks t JOIN states s ON "
            f"s.id = t.state_id WHERE {scope} GROUP BY t.assignee_id, s.name"
        ),
        "forecast": (
            f"SELECT {weeks} FROM task_activity a JOIN tasks t ON t.id = a.task_id "
            "WHERE a.org_id = :org AND a.field = 'state' AND a.new_category = 'completed' "
            "AND a.created_at >= :b0 AND a.created_at < :b8 AND (a.old_category IS NULL OR "
            f"a.old_category != 'completed') AND {scope}"
        ),
        "custom": (
            "SELECT t.assignee_id, count(*) FROM tasks t WHERE "
            f"{scope} AND t.state_category != 'completed' AND t.priority IN "
            "('high', 'urgent') GROUP BY t.assignee_id ORDER BY 2 DESC"
        ),
    }


def median_ms(fn, runs: int) -> float:
    fn()  # warm the cache and the statement cache
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def measure(url: str, instance: str, runs: int) -> list[tuple[str, float, float]]:
    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app
    from workspace.auth.api_tokens import create_token
    from workspace.core.models import Account, Org, Task
    from workspace.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
    with app.app_context():
        dialect = db.engine.dialect.name
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            # Fresh bulk loads: statistics, and (PostgreSQL) the visibility map that
            # index-only scans need, as autovacuum would leave them.
            conn.execute(text("VACUUM ANALYZE" if dialect == "postgresql" else "ANALYZE"))
        from sqlalchemy import func, select

        org_id = db.session.scalar(
            select(Task.org_id).group_by(Task.org_id).order_by(func.count().desc()).limit(1)
        )
        org = db.session.get(Org, org_id)
        owner = db.session.scalar(select(Account).where(Account.email == "bench-owner@bench.test"))
        _, token = create_token(owner, org, f"bench {uuid.uuid4().hex[:6]}")
        db.session.commit()
        count = db.session.scalar(
            select(func.count()).select_from(Task).where(Task.org_id == org_id)
        )
        print(f"  biggest org: {count} tasks", flush=True)
        now = datetime.now(UTC)
        params, statements = raw_queries(dialect, org_id, now.date(), now)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    results = []
    for name, query in ENDPOINTS.items():
        path = f"/api/v1/orgs/{org_id}/analytics/{name}"

        def call(path=path, query=query):
            resp = client.get(path, query_string=query, headers=headers)
            assert resp.status_code == 200, resp.get_data(as_text=True)

        api = median_ms(call, runs)
        engine = create_engine(url)
        with engine.connect() as conn:
            sql = text(statements[name])
            raw = median_ms(lambda conn=conn, sql=sql: conn.execute(sql, params).all(), runs)
        engine.dispose()
        results.append((name, api, raw))
    with app.app_context():
        db.engine.dispose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
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
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="bench-analytics-")
    Path(work).mkdir(parents=True, exist_ok=True)
    rows = []
    for backend in args.backends.split(","):
        print(f"{backend}:", flush=True)
        instance = str(Path(work) / f"instance-{backend}")
        Path(instance).mkdir(exist_ok=True)
        admin = None
        reuse = bool(args.keep and args.reuse)
        if backend == "sqlite":
            path = Path(work) / "bench.db"
            if not reuse:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
            url = f"sqlite:///{path}"
        else:
            admin_url = make_url(args.pg_url).set(drivername="postgresql+psycopg")
            admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
            record = Path(work) / "pg-database"
            if reuse:
                name = record.read_text().strip()
            else:
                name = f"bench_analytics_{uuid.uuid4().hex[:8]}"
                with admin.connect() as conn:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
                if args.keep:
                    record.write_text(name)
            url = admin_url.set(database=name).render_as_string(hide_password=False)
        try:
            if not reuse:
                prepare(url, args.tasks, instance)
            rows += [(backend, *r) for r in measure(url, instance, args.runs)]
        finally:
            if admin is not None:
                if not args.keep:
                    with admin.connect() as conn:
                        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
    print(f"\n{args.tasks} tasks, median of {args.runs} runs (ms)")
    print("| database | endpoint | API | raw SQL | ratio |\n|---|---|---|---|---|")
    for backend, name, api, raw in rows:
        print(f"| {backend} | {name} | {api:.0f} | {raw:.0f} | {api / raw:.2f}x |")


if __name__ == "__main__":
    main()
