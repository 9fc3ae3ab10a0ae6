"""The slots of the rollups that writers add into side by side, folded back into one row
per bucket (migrations 0036 and 0038, docs/scaling.md#hot-writes).

Each PostgreSQL writing transaction adds its deltas to a slot of a bucket no other
open transaction holds (1 to 32, ``rollup_slot()``, migration 0037), so concurrent
writers of one project do not queue on a row. Left alone, a busy bucket keeps up to
32 rows, some negative or zero, and every read sums them. The
fold, every minute, moves every row outside slot 0 into slot 0, which no writer uses,
and drops what sums to zero: reads then find one row per bucket again, except for what
was written since. Hourly, as before migration 0041, a hot org's reads could sum 32
rows a bucket and went from 26 to 207 ms at a million tasks; a minute at the API's
pace leaves about 83,000 slot rows beside a 600,000-task org's 543,000, and its reads
stayed under 50 ms (docs/scaling.md#reads-before-the-fold). The fold finds its rows
through a partial index of the rows outside slot 0 (0041), so a fold with little to
do reads little. It skips the rows a writer holds (``SKIP LOCKED``, folded next
time): taking them in its own order while writers take theirs deadlocked (a bench run
saw it). SQLite has one writer and only slot 0: nothing to fold."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import Index, Table, text

from workspace.analytics.consistency import ROLLUPS
from workspace.extensions import db
from workspace.jobs import schedule
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler
from workspace.transaction import commit_early

KIND = "analytics.fold_slots"
#: Every rollup that writers add into by slot (0036, 0038): the ones with a slot column.
SLOTTED: tuple[Table, ...] = tuple(r.table for r in ROLLUPS if "slot" in r.table.c)
#: The columns a bucket sums; every other column but the slot is its key.
SUMMED = ("n", "entered_ms", "created", "completed")

for _table in SLOTTED:
    # What the fold reads each minute: the rows outside slot 0, not the whole table
    # (migration 0041). No writer changes a row's slot, so updates stay HOT.
    Index(f"ix_{_table.name}_unfolded", _table.c.slot, postgresql_where=_table.c.slot != 0).ddl_if(
        dialect="postgresql"
    )


def _conflict(table: Table) -> str:
    """The unique key the triggers upsert on, slot included: the unique index (some
    name ``coalesce`` over a nullable id), else the primary key."""
    unique = next((i.expressions for i in table.indexes if i.unique), table.primary_key.columns)
    return ", ".join(getattr(e, "name", None) or str(e) for e in unique)


def fold(after_each: Callable[[], None] | None = None) -> dict[str, int]:
    """Per slotted table, how many rows outside slot 0 were folded in, each table in
    one statement; ``after_each`` runs after each table (the job commits there). The
    caller commits."""
    if db.engine.dialect.name != "postgresql":
        return {}
    folded = {}
    for table in SLOTTED:
        folded[table.name] = _fold(table)
        if after_each is not None:
            after_each()
    return folded


def _fold(table: Table) -> int:
    keys = ", ".join(c.name for c in table.c if c.name != "slot" and c.name not in SUMMED)
    values = [c.name for c in table.c if c.name in SUMMED]
    name = table.name
    sums = ", ".join(f"sum({v})" for v in values)
    adds = ", ".join(f"{v} = {name}.{v} + excluded.{v}" for v in values)
    zero = " AND ".join(f"{v} = 0" for v in values)
    # One statement: the rows leave their slots and their sums join slot 0 together,
    # so a concurrent reader sees either all of a bucket's slots or its folded row.
    moved, zeros = db.session.execute(
        text(
            f"WITH picked AS (SELECT ctid AS row_id FROM {name} WHERE slot != 0 "
            "FOR UPDATE SKIP LOCKED), "
            f"moved AS (DELETE FROM {name} USING picked WHERE {name}.ctid = picked.row_id "
            f"RETURNING {keys}, {', '.join(values)}), "
            f"summed AS (INSERT INTO {name} ({keys}, slot, {', '.join(values)}) "
            f"SELECT {keys}, 0, {sums} FROM moved GROUP BY {keys} "
            f"ON CONFLICT ({_conflict(table)}) DO UPDATE SET {adds} "
            f"RETURNING ctid AS row_id, {', '.join(values)}) "
            "SELECT (SELECT count(*) FROM moved), "
            f"(SELECT array_agg(row_id::text) FROM summed WHERE {zero})"
        )
    ).one()
    # Only a bucket this fold touched can have come to zero: the rows it just wrote,
    # not a scan of the table.
    if zeros:
        db.session.execute(
            text(f"DELETE FROM {name} WHERE ctid = ANY(CAST(:zeros AS tid[])) AND {zero}"),
            {"zeros": zeros},
        )
    return int(moved)


def _period(config: Mapping[str, Any]) -> timedelta:
    return timedelta(seconds=float(config.get("ROLLUP_FOLD_SECONDS", 60)))


schedule.every(_period, KIND, KIND)


def _let_go() -> None:
    commit_early("a writer waits for the slot rows the fold took until they are committed")


@handler(KIND, max_attempts=1)
def run(job: Job, progress: Progress) -> None:
    # Each table's rows are let go once folded, not when all eleven are: a writer that
    # meets one waited up to 622 ms in one transaction (docs/scaling.md).
    job.result = {"folded": fold(after_each=_let_go)}
