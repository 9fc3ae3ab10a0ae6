"""Writers of one project no longer queue at COMMIT on the arithmetic rollups' rows (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0038_slot_task_rollups
Revises: 0037_flow_append_path
Create Date: 2026-11-28

After 0036 and 0037 every lock wait left in ``bench/hot_writes.py`` was at COMMIT: the
deferred triggers of the rollups that are arithmetic on a task's old and new values
(``task_counts``, ``task_totals``, ``task_assignee_counts``, ``task_due_counts``,
``task_plan_counts``, ``task_completed_days``, ``task_time_counts``) update one row
per bucket that every writer of the project shares, and hold it through the commit's
WAL flush; so does the cycle-time histogram (``task_cycle_weeks``, one row per org,
week and hour of cycle time), which the deferred cycle-time recompute writes. They
get slots as the flow rollups did in 0036:

- a ``slot`` column joins each table's unique key (the primary key of
  ``task_time_counts`` and ``task_cycle_weeks``, rebuilt on SQLite);
- on PostgreSQL each change is a signed delta upserted into the slot the transaction
  claimed (``rollup_slot()``, 0037): a task leaving a bucket adds -1 to its slot's row
  rather than taking 1 from the bucket's row. Nothing is deleted: a slot may hold zero
  or a negative count, readers sum a bucket's slots, and the hourly fold
  (``analytics.fold_slots``) folds them into slot 0 and drops the zero rows;
- SQLite has one writer and keeps its triggers' arithmetic, in slot 0.
"""

import importlib.util
from pathlib import Path

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0038_slot_task_rollups"
down_revision = "0037_flow_append_path"
branch_labels = None
depends_on = None

NO_ID = "'00000000-0000-0000-0000-000000000000'"
#: table -> (its unique key before this revision, its key columns, what a bucket sums).
SLOTTED = {
    "task_counts": (
        "org_id, project_id, state_id, state_category, priority, kind, "
        f"coalesce(assignee_id, {NO_ID})",
        "org_id, project_id, state_id, state_category, priority, kind, assignee_id",
        ("n", "entered_ms"),
    ),
    "task_totals": (
        "org_id, project_id, state_id, state_category, priority, kind",
        "org_id, project_id, state_id, state_category, priority, kind",
        ("n", "entered_ms"),
    ),
    "task_assignee_counts": (
        f"org_id, project_id, state_id, state_category, priority, coalesce(assignee_id, {NO_ID})",
        "org_id, project_id, state_id, state_category, priority, assignee_id",
        ("n",),
    ),
    "task_due_counts": ("org_id, project_id, due_date", "org_id, project_id, due_date", ("n",)),
    "task_plan_counts": (
        "org_id, project_id, state_category, "
        f"coalesce(cycle_id, {NO_ID}), coalesce(module_id, {NO_ID})",
        "org_id, project_id, state_category, cycle_id, module_id",
        ("n",),
    ),
    "task_completed_days": (
        "org_id, completed_on, assignee_id",
        "org_id, completed_on, assignee_id",
        ("n",),
    ),
}
TIME = "task_time_counts"
TIME_KEY = "org_id, grain, starts_at, project_id"


def _revision(filename):
    path = Path(__file__).with_name(filename)
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.op = op
    return module


def _slot(dialect):
    return "rollup_slot()" if dialect == "postgresql" else "0"


def _upsert(name, dialect, columns, values, sets, guard):
    """One row of deltas into the writer's slot of its bucket."""
    conflict = SLOTTED[name][0]
    updates = ", ".join(f"{c} = {name}.{c} + excluded.{c}" for c in sets)
    return (
        f"INSERT INTO {name} ({columns}, slot) SELECT {values}, {_slot(dialect)} "
        f"WHERE {guard or 'true'} ON CONFLICT ({conflict}, slot) DO UPDATE SET {updates}"
    )


def _as_deltas(module, delta):
    """``module``'s ``_add`` and ``_remove`` as ``delta(..., sign=...)`` into the writer's
    slot; SQLite keeps its removal (one slot: the row is there to take from)."""
    removal = module._remove

    def remove(*args, **kwargs):
        if op.get_bind().dialect.name == "postgresql":
            return delta(*args, sign="-", **kwargs)
        return removal(*args, **kwargs)

    module._add = lambda *args, **kwargs: delta(*args, sign="", **kwargs)
    module._remove = remove
    return module


def _counts(slotted):
    """0007's trigger code with 0010's table; ``slotted``, each change a signed delta."""
    counts = _revision("0010_task_assignee_counts.py")._counts_revision()
    counts.op = op
    if not slotted:
        return counts

    def delta(name, dialect, r, guard=None, *, sign):
        keys, _, _, sums, _ = counts.ROLLUPS[name]
        values = [f"{r}.{k}" for k in keys]
        values += [f"{sign}1", *(f"{sign}({e[dialect].format(r=r)})" for e in sums.values())]
        columns = ", ".join([*keys, "n", *sums])
        return _upsert(name, dialect, columns, ", ".join(values), ["n", *sums], guard)

    return _as_deltas(counts, delta)


def _completed_days(slotted):
    """0011's trigger code; ``slotted``, each change a signed delta."""
    days = _revision("0011_task_completed_days.py")
    if not slotted:
        return days

    def delta(dialect, r, guard="true", *, sign):
        values = f"{r}.org_id, {days.DAY[dialect].format(r=r)}, {r}.assignee_id, {sign}1"
        return _upsert(days.NAME, dialect, f"{days.KEY}, n", values, ["n"], guard)

    return _as_deltas(days, delta)


def _time_counts(slotted):
    time = _revision("0023_time_counts.py")
    if not slotted:
        return time
    apply = time._apply

    def _apply(dialect, *parts):
        statement = apply(dialect, *parts)
        slotted = statement.replace(
            f"INSERT INTO {TIME} ({TIME_KEY}, created, completed) "
            "SELECT org_id, grain, starts_at, project_id, ",
            f"INSERT INTO {TIME} ({TIME_KEY}, slot, created, completed) "
            f"SELECT org_id, grain, starts_at, project_id, {_slot(dialect)}, ",
        ).replace(f"ON CONFLICT ({TIME_KEY})", f"ON CONFLICT ({TIME_KEY}, slot)")
        assert f"({TIME_KEY}, slot, created" in slotted, "0023's upsert is not as expected"
        assert f"ON CONFLICT ({TIME_KEY}, slot)" in slotted, "0023's upsert is not as expected"
        return slotted

    time._apply = _apply
    # PostgreSQL leaves the zero rows to the fold, so an update stays in its slot's row
    # (``NULL`` is PL/pgSQL's statement that does nothing).
    prune = time._prune
    time._prune = lambda dialect: prune(dialect) if dialect == "sqlite" else "NULL"
    return time


def _cycle_weeks(dialect, slotted):
    """0028's histogram triggers on ``task_cycle_times`` (the deferred cycle-time
    recompute writes it at COMMIT too); ``slotted``, each change a signed delta."""
    weeks = _revision("0028_cycle_weeks.py")
    name = weeks.NAME

    def delta(r, sign):
        org, week, bucket = weeks._key(dialect, r)
        conflict = "org_id, week, bucket" + (", slot" if slotted else "")
        return (
            f"INSERT INTO {name} (org_id, week, bucket, n, slot) VALUES ({org}, {week}, "
            f"{bucket}, {sign}1, {_slot(dialect)}) ON CONFLICT ({conflict}) "
            f"DO UPDATE SET n = {name}.n + excluded.n"
        )

    add = delta("NEW", "") if slotted else weeks._add(dialect)
    take = delta("OLD", "-") if slotted and dialect == "postgresql" else weeks._take(dialect)
    take = take if isinstance(take, str) else "; ".join(take)
    if dialect == "postgresql":
        op.execute(
            f"CREATE OR REPLACE FUNCTION {name}_keep() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN IF TG_OP IN ('DELETE', 'UPDATE') THEN {take}; END IF; "
            f"IF TG_OP IN ('INSERT', 'UPDATE') THEN {add}; END IF; RETURN NULL; END $$"
        )
        return
    on = "task_cycle_times"
    for event, when, body in (
        ("insert", "", add),
        ("delete", "", take),
        ("update", f" WHEN {weeks.CHANGED}", f"{take}; {add}"),
    ):
        op.execute(f"DROP TRIGGER IF EXISTS {name}_on_{event}")
        op.execute(
            f"CREATE TRIGGER {name}_on_{event} AFTER {event.upper()} ON {on}{when} "
            f"BEGIN {body}; END"
        )


def _triggers(dialect, slotted):
    """Every slotted rollup's triggers again: PostgreSQL replaces the functions (its
    deferred constraint triggers stay as 0036 made them), SQLite the triggers."""
    replace = _revision("0036_hot_rollup_rows.py")._Replace
    counts = _counts(slotted)
    for name in (
        "task_counts",
        "task_totals",
        "task_assignee_counts",
        "task_due_counts",
        "task_plan_counts",
    ):
        counts.op = replace(dialect, f"{name}_")
        counts._create_triggers(name, dialect)
    days = _completed_days(slotted)
    days.op = replace(dialect, f"{days.NAME}_")
    days._create_triggers(dialect)
    time = _time_counts(slotted)
    time.op = replace(dialect, f"{TIME}_")
    time._create_triggers(dialect)
    _cycle_weeks(dialect, slotted)


#: The rollups whose primary key is their bucket: table -> (key, what a bucket sums,
#: its columns but the slot, its foreign keys).
KEYED = {
    TIME: (
        TIME_KEY,
        ("created", "completed"),
        lambda: [
            sa.Column("org_id", sa.Uuid(), nullable=False),
            sa.Column("grain", sa.String(4), nullable=False),
            sa.Column("starts_at", sa.DateTime(), nullable=False),
            sa.Column("project_id", sa.Uuid(), nullable=False),
            sa.Column("created", sa.Integer(), nullable=False),
            sa.Column("completed", sa.Integer(), nullable=False),
        ],
        lambda: [
            sa.ForeignKeyConstraint(
                ["org_id"], ["orgs.id"], ondelete="CASCADE", name=f"fk_{TIME}_org_id_orgs"
            ),
            sa.ForeignKeyConstraint(
                ["project_id"],
                ["projects.id"],
                ondelete="CASCADE",
                name=f"fk_{TIME}_project_id_projects",
            ),
        ],
    ),
    "task_cycle_weeks": (
        "org_id, week, bucket",
        ("n",),
        lambda: [
            sa.Column("org_id", sa.Uuid(), nullable=False),
            sa.Column("week", sa.Integer(), nullable=False),
            sa.Column("bucket", sa.Integer(), nullable=False),
            sa.Column("n", sa.Integer(), nullable=False),
        ],
        lambda: [
            sa.ForeignKeyConstraint(
                ["org_id"],
                ["orgs.id"],
                ondelete="CASCADE",
                name="fk_task_cycle_weeks_org_id_orgs",
            ),
        ],
    ),
}


def _primary_keys(dialect, slotted):
    """The bucket-keyed rollups' primary keys with (or without) the slot: in place on
    PostgreSQL (the column added or dropped by the caller); SQLite keeps such a table
    in its key (WITHOUT ROWID), so it is rebuilt, and its triggers with it."""
    for name, (key, values, columns, foreign_keys) in KEYED.items():
        key_columns = [*(c.strip() for c in key.split(",")), *(["slot"] if slotted else [])]
        if dialect == "postgresql":
            op.execute(f"ALTER TABLE {name} DROP CONSTRAINT pk_{name}")
            op.execute(
                f"ALTER TABLE {name} ADD CONSTRAINT pk_{name} PRIMARY KEY "
                f"({', '.join(key_columns)}) INCLUDE ({', '.join(values)})"
            )
            continue
        # A SQLite trigger naming a table that is gone for a moment fails the rename.
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}_on_{event}")
        slot = [sa.Column("slot", sa.SmallInteger(), nullable=False, server_default="0")]
        op.create_table(
            f"{name}_new",
            *columns(),
            *(slot if slotted else []),
            *foreign_keys(),  # named for the table it becomes
            sa.PrimaryKeyConstraint(*key_columns, name=f"pk_{name}"),
            sqlite_with_rowid=False,
        )
        copied = ", ".join(c.name for c in columns())
        op.execute(f"INSERT INTO {name}_new ({copied}) SELECT {copied} FROM {name}")
        op.execute(f"DROP TABLE {name}")
        op.execute(f"ALTER TABLE {name}_new RENAME TO {name}")


def _fold(name, key, values):
    """Every bucket's slots as one row in slot 0 (the downgrade's starting point)."""
    sums = ", ".join(f"sum({v}) AS {v}" for v in values)
    columns = ", ".join(c.strip() for c in key.split(","))
    nonzero = " OR ".join(f"sum({v}) != 0" for v in values)
    op.execute(
        f"CREATE TEMPORARY TABLE folded_{name} AS SELECT {columns}, {sums} FROM {name} "
        f"GROUP BY {columns} HAVING {nonzero}"
    )
    op.execute(f"DELETE FROM {name}")
    return f"INSERT INTO {name} ({columns}, {', '.join(values)}) SELECT * FROM folded_{name}"


def _slot_column():
    return sa.Column("slot", sa.SmallInteger(), nullable=False, server_default="0")


def upgrade():
    dialect = op.get_bind().dialect.name
    for name, (key, _, _) in SLOTTED.items():
        op.add_column(name, _slot_column())
        op.execute(f"DROP INDEX ux_{name}_bucket")
        op.execute(f"CREATE UNIQUE INDEX ux_{name}_bucket ON {name} ({key}, slot)")
    if dialect == "postgresql":
        for name in KEYED:
            op.add_column(name, _slot_column())
    _primary_keys(dialect, slotted=True)
    _triggers(dialect, slotted=True)


def downgrade():
    dialect = op.get_bind().dialect.name
    refill = [_fold(name, columns, sums) for name, (_, columns, sums) in SLOTTED.items()]
    refill += [_fold(name, key, sums) for name, (key, sums, _, _) in KEYED.items()]
    # The triggers first: SQLite refuses to drop a column a trigger still names.
    _triggers(dialect, slotted=False)
    for name, (key, _, _) in SLOTTED.items():
        op.execute(f"DROP INDEX ux_{name}_bucket")
        op.execute(f"ALTER TABLE {name} DROP COLUMN slot")
        op.execute(f"CREATE UNIQUE INDEX ux_{name}_bucket ON {name} ({key})")
    _primary_keys(dialect, slotted=False)
    if dialect == "postgresql":
        for name in KEYED:
            op.drop_column(name, "slot")
    else:  # the tables were rebuilt without their triggers
        _triggers(dialect, slotted=False)
    for statement in refill:
        op.execute(statement)
    for name in (*SLOTTED, *KEYED):
        op.execute(f"DROP TABLE folded_{name}")
