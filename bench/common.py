"""What the benchmarks share: scratch databases, loading, timing and the machine's state."""

from __future__ import annotations

import argparse
import os
import platform
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


#: The 12-widget dashboard every benchmark saves in the biggest org: (title, chart,
#: metric, dimension, scoped to the first project?, PQL filter). All five dimensions,
#: the three metrics, a project scope and filters; bench/best_sql.py folds the same.
TWELVE = [
    ("Status", "bar", "count", "status", False, None),
    ("Done by status", "bar", "done", "status", False, None),
    ("Open bugs by status", "bar", "open", "status", False, "kind = bug"),
    ("Priority", "donut", "count", "priority", False, None),
    ("Open by priority", "bar", "open", "priority", False, None),
    ("Kinds", "pie", "count", "kind", False, None),
    ("Project 1 kinds", "table", "count", "kind", True, None),
    ("Workload", "table", "open", "assignee", False, None),
    ("Urgent workload", "bar", "open", "assignee", False, "priority IN (urgent, high)"),
    ("Projects", "bar", "count", "project", False, None),
    ("Done per project", "line", "done", "project", False, None),
    ("Total", "number", "count", "status", False, None),
]


def save_twelve(org, owner_id, first_project, name: str = "bench twelve", top_n=None):
    """The TWELVE widgets as a new dashboard of ``org`` (in an app context; the caller
    commits). ``top_n``: the charts' largest groups before "Other" (None: the default)."""
    from workspace.analytics.dashboards import service, widgets

    dashboard = service.create_dashboard(org, owner_id, name)
    for title, chart, metric, dimension, scoped, pql in TWELVE:
        widget = {
            "title": title,
            "chart_type": chart,
            "metric": metric,
            "dimension": dimension,
            "project_id": first_project if scoped else None,
            "filter": pql,
        }
        if top_n is not None:
            widget["top_n"] = top_n
        widgets.add_widget(dashboard, org, owner_id, widget)
    return dashboard


def biggest_org():
    """The loaded data's biggest org, its task rows, the bench owner and the org's first
    project by name (in an app context)."""
    from sqlalchemy import func, select

    from workspace.benchdata.rows import OWNER_EMAIL
    from workspace.core.models import Account, Org, Project, Task
    from workspace.extensions import db

    org_id, rows = db.session.execute(
        select(Task.org_id, func.count()).group_by(Task.org_id).order_by(func.count().desc())
    ).first()
    owner = db.session.scalar(select(Account).where(Account.email == OWNER_EMAIL))
    first_project = db.session.scalar(
        select(Project.id).where(Project.org_id == org_id).order_by(Project.name).limit(1)
    )
    return db.session.get(Org, org_id), rows, owner, first_project


def load1() -> float:
    """The 1-minute load average: printed next to every figure, since 6 other jobs
    on 2 cores can triple a median."""
    return os.getloadavg()[0]


def flask(args: list[str], env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "app", *args], cwd=ROOT, env=env, check=True
    )


def prepare(url: str, tasks: int, instance: str) -> float:
    """Migrate and load ``tasks`` with ``flask bench-data``; seconds it took."""
    env = {**os.environ, "DATABASE_URL": url, "WORKSPACE_INSTANCE": instance}
    started = time.monotonic()
    flask(["db", "upgrade", "heads"], env)
    flask(["bench-data", "--tasks", str(tasks)], env)
    took = time.monotonic() - started
    print(f"  loaded {tasks} tasks in {took:.0f}s (load {load1():.1f})", flush=True)
    return took


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm the caches and the statement cache
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


@contextmanager
def scratch_database(
    backend: str, work: Path, pg_url: str, keep: bool, reuse: bool
) -> Iterator[tuple[str, bool]]:
    """A database URL for ``backend`` and whether it already holds the data."""
    if backend == "sqlite":
        path = work / "bench.db"
        if not reuse:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        yield f"sqlite:///{path}", reuse
        return
    admin_url = make_url(pg_url).set(drivername="postgresql+psycopg")
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    record = work / "pg-database"
    if reuse:
        name = record.read_text().strip()
    else:
        name = f"bench_analytics_{uuid.uuid4().hex[:8]}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        if keep:
            record.write_text(name)
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False), reuse
    finally:
        if not keep:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def work_dir(keep: str | None, prefix: str) -> Iterator[Path]:
    """``keep`` (made if absent, left afterwards), else a temporary directory removed
    afterwards with the SQLite file in it."""
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        yield Path(keep)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(
    url: str, instance: str, *extra: str, workers: int = 2, app: str = "bench_wsgi:app"
) -> Iterator[int]:
    """The app under ``gunicorn -w workers`` on a free loopback port against the
    database ``url``; yields the port once it accepts. By default bench/bench_wsgi.py
    (no rate limits); ``app="workspace:create_app()"`` is the app as production runs it."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "WORKSPACE_INSTANCE": instance,
        "BASE_URL": f"http://127.0.0.1:{port}",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-w", str(workers), "-b", f"127.0.0.1:{port}",
         "--pythonpath", str(ROOT / "bench"), "--log-level", "warning", *extra, app],
        cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("gunicorn did not start") from None
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


#: The tables whose triggers keep the rollups (and the search index): the tasks and
#: their history.
TASK_TABLES = ("tasks", "task_activity")


@contextmanager
def triggers_off(
    chosen: Callable[[str], bool] | Collection[str] | None,
    *,
    tables: tuple[str, ...] | None = TASK_TABLES,
    disable: bool = False,
) -> Iterator[int]:
    """The triggers of ``tables`` (None: of every table) that ``chosen`` names (a
    predicate of the name, the names themselves, or None for all of them) off for the
    block, then put back as they were. On PostgreSQL they are dropped and
    made again from their definitions, or with ``disable`` disabled and enabled
    (ALTER TABLE); SQLite can only drop them. Yields how many are off. The writes in
    between bypassed them: the caller repairs what they keep."""
    from workspace.extensions import db

    if chosen is None or not callable(chosen):
        names = chosen
        chosen = lambda name: names is None or name in names  # noqa: E731
    with db.engine.begin() as conn:
        postgres = conn.dialect.name == "postgresql"
        if postgres:
            listed = conn.execute(
                text("SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t "
                     "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal")
            ).all()  # fmt: skip
        else:
            listed = conn.execute(
                text("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")
            ).all()
        rows = [r for r in listed if (tables is None or r[1] in tables) and chosen(r[0])]
        restore = []
        for name, table, definition in rows:
            if postgres and disable:
                conn.execute(text(f'ALTER TABLE {table} DISABLE TRIGGER "{name}"'))
                restore.append(f'ALTER TABLE {table} ENABLE TRIGGER "{name}"')
            else:
                conn.execute(text(f'DROP TRIGGER "{name}"' + (f" ON {table}" if postgres else "")))
                restore.append(definition)
    try:
        yield len(rows)
    finally:
        with db.engine.begin() as conn:
            for statement in restore:
                conn.execute(text(statement))


def move_state(conn, org_id, task, old, old_category: str, new, new_category: str) -> None:
    """The two statements a ``PATCH`` of a task's state hangs the rollup triggers on, on
    a psycopg connection holding the task's row lock: the history INSERT and the task
    UPDATE (bench/trigger_cost.py, bench/unfolded.py). The caller commits."""
    conn.execute(
        "INSERT INTO task_activity (id, org_id, task_id, field, old_value, new_value, "
        "old_category, new_category, created_at) VALUES (%s, %s, %s, 'state', %s, %s, "
        "%s, %s, now() AT TIME ZONE 'utc')",
        (uuid.uuid4(), org_id, task, old, new, old_category, new_category),
    )
    conn.execute(
        "UPDATE tasks SET state_id = %s, state_category = %s, completed_at = CASE WHEN "
        "%s = 'completed' THEN now() AT TIME ZONE 'utc' END, state_entered_at = now() AT "
        "TIME ZONE 'utc', updated_at = now() AT TIME ZONE 'utc' WHERE id = %s",
        (new, new_category, new_category, task),
    )


def data_arguments(parser: argparse.ArgumentParser, tasks: int = 1_000_000) -> None:
    """The options that say which data to measure (as bench/analytics.py has them)."""
    parser.add_argument("--tasks", type=int, default=tasks)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument(
        "--keep",
        help="Directory for the SQLite file and instance; the PostgreSQL database is "
        "kept too and its name written there (bench/analytics.py's layout).",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="With --keep: measure the data a previous run left, no reload.",
    )
    unfolded_argument(parser)


def unfolded_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unfolded-slots",
        type=int,
        default=0,
        metavar="N",
        help="PostgreSQL: measure with every rollup bucket spread over N slots, as "
        "writers leave them before the fold (at most 32; bench/unfolded.py).",
    )
    parser.add_argument(
        "--hot-seconds",
        type=float,
        default=0,
        metavar="S",
        help="PostgreSQL: before measuring, S seconds of state changes by --hot-writers "
        "connections with no fold (what a read meets just before a fold of period S).",
    )
    parser.add_argument("--hot-writers", type=int, default=8)
    parser.add_argument(
        "--hot-rate",
        type=float,
        default=0,
        metavar="W",
        help="With --hot-seconds: at most W state changes a second (default: as fast as "
        "the database takes them, several times what the API reaches).",
    )


@contextmanager
def unfolded(args: argparse.Namespace, url: str, instance: str) -> Iterator[None]:
    """With ``--unfolded-slots``: the rollups spread before the block, folded after."""
    spread, hot = getattr(args, "unfolded_slots", 0), getattr(args, "hot_seconds", 0)
    if not (spread or hot) or not url.startswith("postgresql"):
        yield
        return
    import unfolded as slots

    if spread:
        print("  " + slots.spread(url, instance, spread), flush=True)
    if hot:
        left = slots.hot_minute(url, instance, hot, args.hot_writers, args.hot_rate)
        print("  " + left, flush=True)
    try:
        yield
    finally:
        # Kept data starts the next run folded (the fold's own time: bench/unfolded.py).
        slots.fold_time(url, instance)


def datasets(args: argparse.Namespace, prefix: str) -> Iterator[tuple[str, str, str, bool]]:
    """Per backend of ``args`` (see :func:`data_arguments`): its name, a database URL
    holding ``--tasks`` tasks (loaded unless reused), its instance directory, and
    whether it was just loaded. Scratch data is removed after its turn unless kept."""
    with work_dir(args.keep, prefix) as work:
        reuse = bool(args.keep and args.reuse)
        for backend in args.backends.split(","):
            print(f"{backend}, {'kept data' if reuse else f'{args.tasks} tasks'}:", flush=True)
            instance = work / f"instance-{backend}"
            instance.mkdir(exist_ok=True)
            with scratch_database(backend, work, args.pg_url, bool(args.keep), reuse) as (
                url,
                ok,
            ):
                if not ok:
                    prepare(url, args.tasks, str(instance))
                with unfolded(args, url, str(instance)):
                    yield backend, url, str(instance), not ok


def header(script: str, args: argparse.Namespace) -> str:
    """A run's first line: the script, the data it measures and the machine."""
    data = "--reuse" if args.keep and args.reuse else f"--tasks {args.tasks}"
    if getattr(args, "unfolded_slots", 0):
        data += f" --unfolded-slots {args.unfolded_slots}"
    if getattr(args, "hot_seconds", 0):
        data += f" --hot-seconds {args.hot_seconds:g} --hot-writers {args.hot_writers}"
        if args.hot_rate:
            data += f" --hot-rate {args.hot_rate:g}"
    return f"bench/{script} {data}: {machine()}"


def machine() -> str:
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


def database_version(conn) -> str:
    if conn.dialect.name == "sqlite":
        return f"SQLite {sqlite3.sqlite_version}"
    settings = ", ".join(
        f"{name}={conn.execute(text(f'SHOW {name}')).scalar()}"
        for name in ("jit", "shared_buffers", "work_mem", "max_parallel_workers_per_gather")
    )
    version = conn.execute(text("SHOW server_version")).scalar()
    return f"PostgreSQL {version.split()[0]} ({settings})"
