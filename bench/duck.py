"""The columnar ceiling: the biggest org's rows copied into an in-memory DuckDB.

Copied through Python (CSV files; no pyarrow or DuckDB extensions needed): the org's
tasks, its state-change history, and the small tables the figures name. The same
hand-written statements (bench/best_sql.py, PostgreSQL spelling) then run there.
"""

from __future__ import annotations

import csv
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
from sqlalchemy import text

TASK_COLUMNS = {
    "id": "UUID",
    "org_id": "UUID",
    "project_id": "UUID",
    "state_id": "UUID",
    "state_category": "VARCHAR",
    "priority": "VARCHAR",
    "kind": "VARCHAR",
    "assignee_id": "UUID",
    "cycle_id": "UUID",
    "due_date": "DATE",
    "is_draft": "BOOLEAN",
    "created_at": "TIMESTAMP",
    "completed_at": "TIMESTAMP",
    "archived_at": "TIMESTAMP",
    "deleted_at": "TIMESTAMP",
    "state_entered_at": "TIMESTAMP",
}
TABLES = {
    "tasks": ("SELECT {columns} FROM tasks WHERE org_id = :org", TASK_COLUMNS),
    "task_activity": (
        "SELECT {columns} FROM task_activity WHERE org_id = :org AND field = 'state'",
        {
            "org_id": "UUID",
            "task_id": "UUID",
            "field": "VARCHAR",
            "old_category": "VARCHAR",
            "new_category": "VARCHAR",
            "created_at": "TIMESTAMP",
        },
    ),
    "states": (
        "SELECT {columns} FROM states WHERE project_id IN "
        "(SELECT id FROM projects WHERE org_id = :org)",
        {"id": "UUID", "project_id": "UUID", "name": "VARCHAR"},
    ),
    "projects": (
        "SELECT {columns} FROM projects WHERE org_id = :org",
        {"id": "UUID", "org_id": "UUID", "name": "VARCHAR"},
    ),
    "cycles": (
        "SELECT {columns} FROM cycles WHERE project_id IN "
        "(SELECT id FROM projects WHERE org_id = :org)",
        {"id": "UUID", "project_id": "UUID", "name": "VARCHAR", "start_date": "DATE"},
    ),
    "org_members": (
        "SELECT {columns} FROM org_members WHERE org_id = :org",
        {"org_id": "UUID", "account_id": "UUID"},
    ),
    "accounts": (
        "SELECT {columns} FROM accounts WHERE id IN "
        "(SELECT account_id FROM org_members WHERE org_id = :org)",
        {"id": "UUID", "name": "VARCHAR", "email": "VARCHAR", "kind": "VARCHAR"},
    ),
}


def copy_org(conn, org: Any) -> tuple[duckdb.DuckDBPyConnection, float]:
    """A DuckDB holding the org's rows; seconds the copy took."""
    started = time.monotonic()
    duck = duckdb.connect()
    with tempfile.TemporaryDirectory(prefix="bench-duck-") as tmp:
        for table, (query, columns) in TABLES.items():
            path = Path(tmp) / f"{table}.csv"
            _export(conn, query.format(columns=", ".join(columns)), org, path)
            spec = ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items())
            duck.execute(
                f"CREATE TABLE {table} AS SELECT * FROM read_csv('{path}', header = false, "
                f"columns = {{{spec}}}, nullstr = '\\N')"
            )
    return duck, time.monotonic() - started


def _export(conn, query: str, org: Any, path: Path) -> None:
    if conn.dialect.name == "postgresql":
        sql = query.replace(":org", f"'{org}'")  # a UUID: nothing to escape
        raw = conn.connection.dbapi_connection
        with (
            raw.cursor() as cursor,
            path.open("wb") as out,
            cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv, NULL '\\N')") as copy,
        ):
            for block in copy:
                out.write(block)
        return
    result = conn.execute(text(query), {"org": org.hex})
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        while rows := result.fetchmany(50_000):
            writer.writerows(["\\N" if v is None else v for v in row] for row in rows)


def runner(duck: duckdb.DuckDBPyConnection):
    """``run(sql, params)`` for bench/best_sql.py: ``:name`` becomes ``$name``."""

    def run(sql: str, params: dict[str, Any]) -> list[tuple]:
        named = re.sub(r"(?<![:\w]):(\w+)", r"$\1", sql)
        used = {k: v for k, v in params.items() if f"${k}" in named}
        return duck.execute(named, used).fetchall()

    return run
