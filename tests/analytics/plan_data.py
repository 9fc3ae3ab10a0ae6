"""A large multi-org dataset written in SQL, for query plans and timings.

The orgs, people, projects, states, cycles and modules are made through the services;
the tasks are one ``INSERT ... SELECT`` over a numbers CTE joined to a small table of
random "slots" (project, state, assignee, dates ...), so 100,000 tasks load in
seconds on both databases. The biggest org holds ~60% of the rows, as in the
benchmark, so a plan that reads other orgs' rows shows in its cost.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    Integer,
    MetaData,
    String,
    Table,
    column,
    insert,
    literal,
    literal_column,
    select,
    table,
    text,
)
from sqlalchemy.types import Uuid

from workspace.analytics import consistency
from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import Org, State, Task, TaskActivity
from workspace.core.orgs import create_org
from workspace.core.planning import create_cycle, create_module
from workspace.core.projects import create_project
from workspace.dbfunctions import random_uuid
from workspace.extensions import db
from workspace.types import UTCDateTime

#: Share of the tasks per org: one big org, the rest small.
ORG_WEIGHTS = (0.6, 0.16, 0.12, 0.08, 0.04)
PROJECTS_PER_ORG = 3
PEOPLE_PER_ORG = 8
SLOTS = 5000
ACTIVITY_COLUMNS = (
    "id",
    "org_id",
    "task_id",
    "field",
    "old_value",
    "new_value",
    "old_category",
    "new_category",
    "created_at",
)


@dataclass
class PlanData:
    org_ids: list[uuid.UUID]
    #: The biggest org's projects.
    project_ids: list[uuid.UUID]
    owner_id: uuid.UUID


def _slots_table() -> Table:
    return Table(
        "plan_slots",
        MetaData(),
        Column("k", Integer, primary_key=True),
        Column("org_id", Uuid),
        Column("project_id", Uuid),
        Column("state_id", Uuid),
        Column("state_category", String(16)),
        Column("priority", String(16)),
        Column("kind", String(16)),
        Column("assignee_id", Uuid),
        Column("cycle_id", Uuid),
        Column("module_id", Uuid),
        Column("due_date", Date),
        Column("is_draft", Boolean),
        Column("created_at", UTCDateTime()),
        Column("state_entered_at", UTCDateTime()),
        Column("completed_at", UTCDateTime()),
        Column("archived_at", UTCDateTime()),
        prefixes=["TEMPORARY"],
    )


def _orgs(rng: random.Random) -> tuple[list[Org], dict[uuid.UUID, list[dict]], uuid.UUID]:
    """Orgs with people and projects; per org, its projects' states, cycles, modules."""
    owner = ensure_account("plans-owner@plans.test", "Plan Owner", email_verified=True)
    orgs, shapes = [], {}
    for i in range(len(ORG_WEIGHTS)):
        org = create_org(f"Plan Org {i}", owner)
        people = [owner.id]
        for p in range(PEOPLE_PER_ORG - 1):
            person = ensure_account(f"p{p}.o{i}@plans.test", f"Person {p} of {i}")
            add_member(org, person)
            people.append(person.id)
        projects = []
        for j in range(PROJECTS_PER_ORG):
            project = create_project(org.id, owner.id, f"Project {j}", f"P{i}X{j}")
            cycles = [create_cycle(project, f"Sprint {c}", None, None).id for c in range(3)]
            modules = [create_module(project, f"Module {m}").id for m in range(2)]
            states = db.session.scalars(select(State).where(State.project_id == project.id))
            projects.append(
                {
                    "id": project.id,
                    "states": [(s.id, s.category) for s in states],
                    "cycles": cycles,
                    "modules": modules,
                    "people": people,
                }
            )
        orgs.append(org)
        shapes[org.id] = projects
    db.session.flush()
    return orgs, shapes, owner.id


def load(tasks: int, seed: int = 7) -> PlanData:
    """Write ``tasks`` tasks (and a state history row for each one that changed state)
    across the orgs, and commit."""
    rng = random.Random(seed)
    orgs, shapes, owner_id = _orgs(rng)
    now = datetime.now(UTC).replace(tzinfo=None)
    slots = []
    for k in range(SLOTS):
        org = rng.choices(orgs, ORG_WEIGHTS)[0]
        project = rng.choice(shapes[org.id])
        state_id, category = rng.choice(project["states"])
        created = now - timedelta(days=rng.uniform(1, 200))
        entered = created + (now - created) * rng.random() if rng.random() < 0.7 else created
        slots.append(
            {
                "k": k,
                "org_id": org.id,
                "project_id": project["id"],
                "state_id": state_id,
                "state_category": category,
                "priority": rng.choice(["urgent", "high", "medium", "low", "none"]),
                "kind": rng.choice(["task", "bug", "feature", "epic"]),
                "assignee_id": rng.choice(project["people"]) if rng.random() < 0.85 else None,
                "cycle_id": rng.choice(project["cycles"]) if rng.random() < 0.7 else None,
                "module_id": rng.choice(project["modules"]) if rng.random() < 0.6 else None,
                "due_date": (created + timedelta(days=rng.randint(3, 60))).date(),
                "is_draft": rng.random() < 0.01,
                "created_at": created,
                "state_entered_at": entered,
                "completed_at": entered if category == "completed" else None,
                "archived_at": entered if rng.random() < 0.03 else None,
            }
        )
    conn = db.session.connection()
    postgres = db.engine.dialect.name == "postgresql"
    # As the bench loader does (workspace/benchdata): the rollup triggers would upsert
    # once per row (130 s on PostgreSQL, 20 s on SQLite for these rows); the rollups
    # are rebuilt from one scan per org below instead. The plans read the same rows.
    stashed = _triggers_off(conn)
    slot_table = _slots_table()
    slot_table.create(conn)
    conn.execute(insert(slot_table), slots)
    numbers = select(literal_column("1").label("i")).cte("numbers", recursive=True)
    numbers = numbers.union_all(select((numbers.c.i + 1).label("i")).where(numbers.c.i < tasks))
    s = slot_table.c
    copied = [
        "org_id", "project_id", "state_id", "state_category", "priority", "kind",
        "assignee_id", "cycle_id", "module_id", "due_date", "is_draft", "created_at",
        "state_entered_at", "completed_at", "archived_at",
    ]  # fmt: skip
    rows = select(
        random_uuid(),
        numbers.c.i,
        literal("Generated task"),
        literal(""),
        *(s[name] for name in copied),
        s.created_at,
    ).join_from(numbers, slot_table, s.k == numbers.c.i % SLOTS)
    conn.execute(
        insert(Task.__table__).from_select(
            ["id", "sequence", "title", "description", *copied, "updated_at"], rows
        )
    )
    tasks_t = table(
        "tasks",
        column("id"),
        column("org_id"),
        column("state_category"),
        column("created_at"),
        column("state_entered_at"),
    )
    conn.execute(
        insert(TaskActivity.__table__).from_select(
            ACTIVITY_COLUMNS,
            select(
                random_uuid(),
                tasks_t.c.org_id,
                tasks_t.c.id,
                literal("state"),
                literal("Todo"),
                literal("Next"),
                literal("unstarted"),
                tasks_t.c.state_category,
                tasks_t.c.state_entered_at,
            ).where(tasks_t.c.state_entered_at > tasks_t.c.created_at),
        )
    )
    slot_table.drop(conn)
    if postgres:
        # Statistics of the rows just written (in this transaction): planned blind,
        # the rebuild joins the history to the tasks by nested sequential scans.
        conn.execute(text("ANALYZE tasks, task_activity"))
    _triggers_on(conn, stashed)
    for org in orgs:
        consistency.rebuild(org.id)
    db.session.commit()
    analyze()
    return PlanData([o.id for o in orgs], [p["id"] for p in shapes[orgs[0].id]], owner_id)


def _triggers_off(conn) -> list[str]:
    """The triggers on the tasks and their history off for this transaction. SQLite
    cannot switch them off: they are dropped, and their definitions returned to put
    back (DDL is transactional there too)."""
    if db.engine.dialect.name == "postgresql":
        conn.execute(text("SET LOCAL session_replication_role = replica"))
        return []
    stashed = conn.execute(
        text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
             "AND tbl_name IN ('tasks', 'task_activity')")
    ).all()  # fmt: skip
    for name, _ in stashed:
        conn.execute(text(f'DROP TRIGGER "{name}"'))
    return [definition for _, definition in stashed]


def _triggers_on(conn, stashed: list[str]) -> None:
    if db.engine.dialect.name == "postgresql":
        conn.execute(text("SET LOCAL session_replication_role = DEFAULT"))
    for definition in stashed:
        conn.execute(text(definition))


def unload() -> None:
    """Delete everything :func:`load` wrote, without the per-row rollup triggers on
    the way (20 s on SQLite); the tests' own clean then finds little to do."""
    with db.engine.begin() as conn:
        stashed = _triggers_off(conn)
        conn.execute(text("DELETE FROM task_activity"))
        conn.execute(text("DELETE FROM tasks"))
        _triggers_on(conn, stashed)


def analyze() -> None:
    """Statistics as a production database has them (PostgreSQL: and the visibility
    map autovacuum keeps, which index-only scans need)."""
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
    else:
        with db.engine.begin() as conn:
            conn.execute(text("ANALYZE"))
