"""Benchmark data: ``flask bench-data --tasks N`` (docs/scaling.md, docs/analytics.md).

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

import contextlib
import queue
import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import click
import psycopg
from flask.cli import with_appcontext
from sqlalchemy import text

from workspace.analytics import consistency
from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import Task
from workspace.core.orgs import create_org
from workspace.core.projects import create_project
from workspace.extensions import db
from workspace.seed import NOUNS, VERBS, project_shape
from workspace.transaction import transactional

T = TypeVar("T")
SHARES = (0.6, 0.2, 0.1, 0.1)
MEMBERS = 60
PROJECTS = 8
CHUNK = 50_000
OWNER_EMAIL = "bench-owner@bench.test"

# Where a task ends up (mostly done or in flight), then a path through the workflow.
FINALS = ("completed", "started", "unstarted", "backlog", "cancelled", "triage")
FINAL_WEIGHTS = (40, 18, 15, 17, 6, 4)
PATH = ("backlog", "unstarted", "started", "completed")
PRIORITIES = ("urgent", "high", "medium", "low", "none")
PRIORITY_WEIGHTS = (5, 15, 35, 25, 20)
KINDS = ("task", "bug", "feature", "epic")
KIND_WEIGHTS = (50, 25, 20, 5)

TASK_COLUMNS = [
    "id",
    "org_id",
    "project_id",
    "sequence",
    "title",
    "description",
    "state_id",
    "state_category",
    "priority",
    "kind",
    "assignee_id",
    "cycle_id",
    "module_id",
    "created_by_id",
    "due_date",
    "is_draft",
    "created_at",
    "updated_at",
    "completed_at",
    "archived_at",
    "deleted_at",
]
ACTIVITY_COLUMNS = [
    "id",
    "org_id",
    "task_id",
    "actor_id",
    "field",
    "old_value",
    "new_value",
    "old_category",
    "new_category",
    "created_at",
]


def task_columns() -> list[str]:
    # H6's state_entered_at (migration 0006) is filled when the model has it.
    extra = ["state_entered_at"] if "state_entered_at" in Task.__table__.c else []
    unknown = [
        c.name
        for c in Task.__table__.c
        if c.name not in TASK_COLUMNS + extra and not c.nullable and c.server_default is None
    ]
    if unknown:
        raise click.ClickException(f"bench-data does not know how to fill tasks.{unknown}.")
    return TASK_COLUMNS + extra


@dataclass
class ProjectPlan:
    """What rows of one project reference, as the strings both databases accept
    (UUIDs as 32 hex digits, which PostgreSQL's uuid input takes as well)."""

    id: str
    org_id: str
    states: dict[str, list[tuple[str, str]]]  # category -> [(state id, name)]
    cycles: list[str]
    modules: list[str]
    next_sequence: int = 1


@dataclass
class OrgPlan:
    slug: str
    org_id: str
    tasks: int
    members: list[str]
    projects: list[ProjectPlan] = field(default_factory=list)


class Clock:
    """Epoch seconds to the naive-UTC text both databases store and parse."""

    def __init__(self) -> None:
        self._days: dict[int, str] = {}
        self._epoch = date(1970, 1, 1)

    def day(self, index: int) -> str:
        found = self._days.get(index)
        if found is None:
            found = self._days[index] = (self._epoch + timedelta(days=index)).isoformat()
        return found

    def stamp(self, t: float) -> str:
        whole = int(t)
        day, sec = divmod(whole, 86400)
        hours, rest = divmod(sec, 3600)
        minutes, seconds = divmod(rest, 60)
        micro = int((t - whole) * 1_000_000)
        return f"{self.day(day)} {hours:02d}:{minutes:02d}:{seconds:02d}.{micro:06d}"


CLOCK = Clock()
TITLES = [f"{verb} {noun}" for verb in VERBS for noun in NOUNS]


def generate(
    rng: random.Random,
    org: OrgPlan,
    count: int,
    now: float,
    *,
    null: Any,
    with_entered: bool,
    days: int = 365,
) -> tuple[list[tuple], list[tuple]]:
    """``count`` task rows of ``org`` (random projects) and their activity rows, as
    tuples of text in TASK_COLUMNS / ACTIVITY_COLUMNS order; ``null`` stands for NULL."""
    clock = CLOCK
    bits, rand, uniform, expo = rng.getrandbits, rng.random, rng.uniform, rng.expovariate
    choice, randint = rng.choice, rng.randint
    finals = rng.choices(FINALS, FINAL_WEIGHTS, k=count)
    priorities = rng.choices(PRIORITIES, PRIORITY_WEIGHTS, k=count)
    kinds = rng.choices(KINDS, KIND_WEIGHTS, k=count)
    members, projects, org_id = org.members, org.projects, org.org_id
    tasks, activity = [], []
    for i in range(count):
        project = choice(projects)
        task_id = f"{bits(128):032x}"
        created = now - uniform(0, days * 86400)
        final = finals[i]
        if final == "triage":
            steps = ["triage"]
        elif final == "cancelled":
            steps = [*PATH[: randint(1, 3)], "cancelled"]
        else:
            end = PATH.index(final) + 1
            steps = list(PATH[randint(0, max(0, end - 2)) : end]) if end > 1 else ["backlog"]
        states = [choice(project.states[c]) for c in steps]
        actor = choice(members)
        activity.append(
            (f"{bits(128):032x}", org_id, task_id, actor, "created", null, null, null, steps[0],
             clock.stamp(created))
        )  # fmt: skip
        at = created
        for k in range(1, len(steps)):
            # ~60 hours per step on average; near "now", halfway there: never later,
            # never two steps at one instant.
            at += min(expo(1 / 216_000), (now - at) / 2)
            activity.append(
                (f"{bits(128):032x}", org_id, task_id, choice(members), "state",
                 states[k - 1][1], states[k][1], steps[k - 1], steps[k], clock.stamp(at))
            )  # fmt: skip
        category = steps[-1]
        at_text = clock.stamp(at)
        created_text = clock.stamp(created)
        due = clock.day(int(created // 86400) + randint(3, 60)) if rand() < 0.6 else null
        row = (
            task_id, org_id, project.id, str(project.next_sequence), choice(TITLES), "",
            states[-1][0], category, priorities[i], kinds[i],
            choice(members) if rand() < 0.85 else null,
            choice(project.cycles) if rand() < 0.7 else null,
            choice(project.modules) if rand() < 0.6 else null,
            actor, due, "1" if rand() < 0.01 else "0", created_text, at_text,
            at_text if category == "completed" else null,
            at_text if rand() < 0.03 else null,
            at_text if rand() < 0.01 else null,
        )  # fmt: skip
        project.next_sequence += 1
        tasks.append((*row, at_text) if with_entered else row)
    return tasks, activity


def plan_orgs(task_count: int, rng: random.Random, today: date) -> list[OrgPlan]:
    """The orgs, their members and projects, made through the services."""
    owner = ensure_account(OWNER_EMAIL, "Bench Owner", email_verified=True)
    plans, done = [], 0
    for index, share in enumerate(SHARES):
        count = int(task_count * share) if index < len(SHARES) - 1 else task_count - done
        done += count
        slug = f"bench-{index + 1}-{uuid.uuid4().hex[:6]}"
        org = create_org(f"Bench {index + 1}", owner, slug)
        members = [owner.id]
        for i in range(MEMBERS):
            account = ensure_account(f"member{i}@{slug}.test", f"Member {i}")
            add_member(org, account)
            members.append(account.id)
        plan = OrgPlan(slug=slug, org_id=org.id.hex, tasks=count, members=[m.hex for m in members])
        for p in range(PROJECTS):
            project = create_project(org.id, owner.id, f"Project {p + 1}", f"P{p + 1}")
            shape = project_shape(project, rng, cycles=8, modules=5, today=today)
            states: dict[str, list[tuple[str, str]]] = {}
            for category, rows in shape.states.items():
                states[str(category)] = [(s.id.hex, _copy_text(s.name)) for s in rows]
            plan.projects.append(
                ProjectPlan(
                    id=project.id.hex,
                    org_id=org.id.hex,
                    states=states,
                    cycles=[c.hex for c in shape.cycle_ids],
                    modules=[m.hex for m in shape.module_ids],
                    next_sequence=shape.next_sequence,
                )
            )
        plans.append(plan)
    db.session.flush()
    return plans


def _copy_text(value: str) -> str:
    # COPY's text format: these four would end a field or a row early.
    for raw, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        value = value.replace(raw, escaped)
    return value


def chunks(
    plans: list[OrgPlan], rng: random.Random, now: float, null: Any, with_entered: bool
) -> Iterator[tuple[OrgPlan, list[tuple], list[tuple]]]:
    for plan in plans:
        remaining = plan.tasks
        while remaining > 0:
            size = min(CHUNK, remaining)
            yield plan, *generate(rng, plan, size, now, null=null, with_entered=with_entered)
            remaining -= size


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


# -- writers -----------------------------------------------------------------------------
#
# Both writers keep everything in the caller's transaction: a failed load leaves the
# database as it was (PostgreSQL's DDL is transactional; SQLite's too).

Report = Callable[[str | int], None]
BULK_TABLES = "('tasks', 'task_activity')"


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


def load(task_count: int, seed: int = 11, echo: Callable[[str], None] = print) -> list[OrgPlan]:
    """Generate and write ``task_count`` tasks in one transaction, then commit."""
    from workspace.core.models import Project

    rng = random.Random(seed)
    now = datetime.now(UTC)
    started = time.monotonic()
    columns = task_columns()
    dialect = db.session.get_bind().dialect.name
    raw = db.session.connection().connection.dbapi_connection
    restore = sqlite_bulk_mode(raw) if dialect == "sqlite" else None
    written = 0

    def report(what: str | int) -> None:
        nonlocal written
        if isinstance(what, int):  # a batch of tasks: say so once per million
            before, written = written, written + what
            if written // 1_000_000 == before // 1_000_000 and written != task_count:
                return
            what = f"{written} tasks written"
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
