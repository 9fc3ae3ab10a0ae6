"""What the benchmarks share: scratch databases, loading, timing and the machine's state."""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


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
