"""How ``flask bench-data`` writes its rows fast: PostgreSQL's ``COPY`` and SQLite's
``executemany``, with the indexes, triggers and checks that would slow a bulk load
set aside and restored, and the rollups and statistics rebuilt afterwards.

Both writers keep everything in the caller's transaction: a failed load leaves the
database as it was (PostgreSQL's DDL is transactional; SQLite's too).
"""

from __future__ import annotations

import contextlib
import queue
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import psycopg
from sqlalchemy import text

from workspace.analytics import consistency
from workspace.benchdata.rows import OrgPlan
from workspace.core.models.tasks import ACTIVITY_COLUMNS
from workspace.extensions import db

T = TypeVar("T")
Report = Callable[[str | int], None]
BULK_TABLES = "('tasks', 'task_activity')"


def prefetch(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """``items`` made in a thread while the caller writes the previous ones: the
    drivers release the GIL while the database works, so generating and writing
    overlap on two cores."""
    done = object()
    buffer: queue.Queue = queue.Queue(maxsize=depth)
    failure: list[BaseException] = []

    def produce() -> None:
        try:
            for item in items:
                buffer.put(item)
        except BaseException as exc:  # handed to the consumer, re-raised there
            failure.append(exc)
        finally:
            buffer.put(done)

    thread = threading.Thread(target=produce, name="bench-data", daemon=True)
    thread.start()
    while (item := buffer.get()) is not done:
        yield item
    thread.join()
    if failure:
        raise failure[0]


def load_postgresql(raw: Any, batches: Iterator, columns: list[str], report: Report) -> None:
    cursor = raw.cursor()
    cursor.execute("SET LOCAL synchronous_commit = off")
    cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
    cursor.execute("SAVEPOINT replica")
    try:
        # Superuser only: skips the row-by-row foreign-key checks.
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("RELEASE SAVEPOINT replica")
    except psycopg.errors.InsufficientPrivilege:
        cursor.execute("ROLLBACK TO SAVEPOINT replica")
    # The rollups' triggers would upsert once per row; each rollup is rebuilt from
    # one scan afterwards instead (load()).
    cursor.execute("ALTER TABLE tasks DISABLE TRIGGER USER")
    cursor.execute("ALTER TABLE task_activity DISABLE TRIGGER USER")
    cursor.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = "
        f"current_schema() AND i.tablename IN {BULK_TABLES} AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
    )
    indexes = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    # Nothing references the history's key: it is built once at the end too (the
    # tasks' key stays, the history and comments point at it).
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'task_activity'::regclass AND contype = 'p'"
    )
    activity_key = cursor.fetchone()
    if activity_key:
        cursor.execute(f'ALTER TABLE task_activity DROP CONSTRAINT "{activity_key[0]}"')
    task_sql = f"COPY tasks ({', '.join(columns)}) FROM STDIN"
    activity_sql = f"COPY task_activity ({', '.join(ACTIVITY_COLUMNS)}) FROM STDIN"

    def as_text(batch: tuple) -> tuple[int, str, str]:
        _, tasks, activity = batch
        lines = ["\t".join(r) + "\n" for r in tasks]
        return len(tasks), "".join(lines), "".join(["\t".join(r) + "\n" for r in activity])

    waiting = 0.0
    for count, tasks, activity in prefetch(map(as_text, batches)):
        mark = time.monotonic()
        with cursor.copy(task_sql) as copy:
            copy.write(tasks)
        with cursor.copy(activity_sql) as copy:
            copy.write(activity)
        waiting += time.monotonic() - mark
        report(count)
    report(f"of which {waiting:.0f}s waiting for COPY")
    started = time.monotonic()
    for _, definition in indexes:
        cursor.execute(definition)
    if activity_key:
        cursor.execute(
            f'ALTER TABLE task_activity ADD CONSTRAINT "{activity_key[0]}" {activity_key[1]}'
        )
    cursor.execute("ALTER TABLE tasks ENABLE TRIGGER USER")
    cursor.execute("ALTER TABLE task_activity ENABLE TRIGGER USER")
    report(f"{len(indexes)} indexes rebuilt in {time.monotonic() - started:.0f}s")


def sqlite_bulk_mode(raw: Any) -> Callable[[], None]:
    """Bulk pragmas on this connection (before its first write: SQLite refuses them
    inside a transaction); returns what puts the connection's own settings back."""
    cursor = raw.cursor()
    names = ("foreign_keys", "journal_mode", "synchronous", "cache_size", "temp_store")
    before = {name: cursor.execute(f"PRAGMA {name}").fetchone()[0] for name in names}
    busy = cursor.execute("PRAGMA busy_timeout").fetchone()[0]
    cursor.execute("PRAGMA foreign_keys = OFF")  # the rows reference only rows made here
    cursor.execute("PRAGMA busy_timeout = 0")
    # Leaving WAL needs the only connection to the file; with another one open (a
    # server, a test's pool) WAL stays, which is fast enough unsynced. Not OFF: a
    # failed load must still roll back.
    with contextlib.suppress(sqlite3.OperationalError):
        cursor.execute("PRAGMA journal_mode = MEMORY")
    cursor.execute(f"PRAGMA busy_timeout = {int(busy)}")
    for pragma in ("synchronous = OFF", "cache_size = -262144", "temp_store = MEMORY"):
        cursor.execute(f"PRAGMA {pragma}")

    def restore() -> None:
        for name, value in before.items():
            if name == "journal_mode":
                now = cursor.execute("PRAGMA journal_mode").fetchone()[0]
                if now == value:
                    continue
            cursor.execute(f"PRAGMA {name} = {value}")

    return restore


def load_sqlite(raw: Any, batches: Iterator, columns: list[str], report: Report) -> None:
    cursor = raw.cursor()
    cursor.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') "
        f"AND sql IS NOT NULL AND tbl_name IN {BULK_TABLES}"
    )
    # Indexes are built once at the end; the task_counts triggers are recreated
    # unchanged and the rollup rebuilt from one scan (load()).
    stashed = cursor.fetchall()
    for kind, name, _ in stashed:
        cursor.execute(f'DROP {kind.upper()} "{name}"')
    task_sql = f"INSERT INTO tasks ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    activity_sql = (
        f"INSERT INTO task_activity ({', '.join(ACTIVITY_COLUMNS)}) "
        f"VALUES ({', '.join('?' * len(ACTIVITY_COLUMNS))})"
    )
    waiting = 0.0
    for _, tasks, activity in prefetch(batches):
        mark = time.monotonic()
        cursor.executemany(task_sql, tasks)
        cursor.executemany(activity_sql, activity)
        waiting += time.monotonic() - mark
        report(len(tasks))
    report(f"of which {waiting:.0f}s waiting for INSERT")
    started = time.monotonic()
    for _, _, definition in stashed:
        cursor.execute(definition)
    report(f"{len(stashed)} indexes and triggers rebuilt in {time.monotonic() - started:.0f}s")


def rebuild_rollups(plans: list[OrgPlan]) -> None:
    """The maintained rollup (docs/analytics.md#maintained-rollups) of the loaded orgs,
    from one scan each, since the load bypassed its per-row triggers."""
    if db.engine.dialect.name == "postgresql":
        # Statistics of the rows just loaded (ANALYZE runs inside the transaction):
        # without them the planner joins the history to the tasks for the completion
        # counts by a nested loop over sequential scans, minutes instead of seconds.
        db.session.execute(text("ANALYZE tasks, task_activity"))
    for plan in plans:
        consistency.rebuild(uuid.UUID(plan.org_id))


def analyze() -> None:
    dialect = db.engine.dialect.name
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if dialect == "postgresql":
            # As autovacuum would: statistics, and the visibility map that
            # index-only scans need, for the loaded rows and the rebuilt rollups.
            rollups = ", ".join(r.table.name for r in consistency.ROLLUPS)
            conn.execute(text(f"VACUUM (ANALYZE) tasks, task_activity, {rollups}"))
        else:
            conn.execute(text("ANALYZE"))
