"""Benchmark data: ``flask bench-data --tasks N`` (docs/scaling.md, docs/analytics.md).

The scripts that read it live in bench/; this stays in the package because the
command is one of the app's (``workspace/cli.py``) and bench/ is not installed
(docs/architecture.md). :mod:`.rows` generates, :mod:`.writers` writes.

Four orgs named ``bench-*`` share the tasks 60/20/10/10, so the biggest org is the
large customer the analytics must stay fast for (6M of 10M). Orgs, members, projects,
workflow states, cycles and modules go through the services; the tasks and their
state-change history are bulk rows, because at ten million the ORM is hours, not
minutes. Every task gets a ``created`` activity row and one ``state`` row per
transition it made (about 2.3 rows per task), which flow, forecast and scatter read;
``state_entered_at`` (when the model has it) is the time of the latest state row,
else the creation time, the rule the app writes.

One transaction per load (a failed load leaves nothing). PostgreSQL: secondary
indexes and the history's key dropped, text ``COPY`` streamed while the next chunk is
generated, foreign-key checks off (``session_replication_role = replica`` when the
role may set it; the rows reference only rows made here), indexes built again; the
rollup triggers are off during the load and the rollups rebuilt per org from one
scan; then ``VACUUM ANALYZE`` so index-only scans have their visibility map. SQLite:
bulk pragmas, indexes and triggers dropped and recreated, ``executemany``, then
``ANALYZE``. Measured times: docs/scaling.md.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import click
from flask.cli import with_appcontext

from workspace.benchdata.rows import TASK_COLUMNS, OrgPlan, chunks, plan_orgs, task_columns
from workspace.benchdata.writers import (
    analyze,
    load_postgresql,
    load_sqlite,
    rebuild_rollups,
    sqlite_bulk_mode,
)
from workspace.core.models import Project
from workspace.extensions import db
from workspace.progress import Progress
from workspace.transaction import transactional


def load(task_count: int, seed: int = 11, echo: Callable[[str], None] = print) -> list[OrgPlan]:
    """Generate and write ``task_count`` tasks in one transaction, then commit."""
    rng = random.Random(seed)
    now = datetime.now(UTC)
    started = time.monotonic()
    columns = task_columns()
    dialect = db.session.get_bind().dialect.name
    raw = db.session.connection().connection.dbapi_connection
    restore = sqlite_bulk_mode(raw) if dialect == "sqlite" else None
    # The tasks written, per batch: a bar on a terminal, lines in logs (stderr).
    tasks = Progress("bench-data", task_count, "tasks")

    def report(what: str | int) -> None:
        if isinstance(what, int):  # a batch of tasks
            tasks.advance(what)
            return
        tasks.close()  # the next phase: the bar's line ends first
        echo(f"  {what} ({time.monotonic() - started:.0f}s)")

    # One unit of work: committed when it returns, rolled back if anything fails.
    @transactional
    def write() -> list[OrgPlan]:
        plans = plan_orgs(task_count, rng, now.date())
        null = "\\N" if dialect == "postgresql" else None
        batches = chunks(plans, rng, now.timestamp(), null, len(columns) > len(TASK_COLUMNS))
        (load_postgresql if dialect == "postgresql" else load_sqlite)(raw, batches, columns, report)
        for plan in plans:
            for project in plan.projects:
                db.session.get(Project, uuid.UUID(project.id)).next_sequence = project.next_sequence
        rebuild_rollups(plans)
        return plans

    try:
        with tasks:
            plans = write()
        report("committed")
    finally:
        if restore is not None:
            restore()
    analyze()
    report("analyzed")
    return plans


@click.command("bench-data")
@with_appcontext
@click.option(
    "--tasks", "task_count", type=click.IntRange(1), required=True, help="How many tasks."
)
@click.option("--seed", default=11, show_default=True)
def bench_data_command(task_count: int, seed: int) -> None:
    """Bulk-generate tasks for benchmarks into orgs named bench-*.

    The biggest org gets 60% of the rows (as a large customer would); a few percent
    are archived, draft or deleted so scope filters have something to exclude.
    """
    started = time.monotonic()
    plans = load(task_count, seed, click.echo)
    for plan in plans:
        click.echo(f"{plan.slug}: {plan.tasks} tasks")
    click.echo(f"Generated {task_count} tasks in {time.monotonic() - started:.0f}s")
