"""maintained rollups of the tasks that count, kept by triggers in the same transaction
as every task write (docs/analytics.md#maintained-rollups)

Revision ID: 0007_task_counts
Revises: 0006_state_entered_at
Create Date: 2026-11-24

``task_counts``: per org, project, state, category, priority, kind and assignee, how many
tasks count there and the sum of their state-entry times. ``task_due_counts``: per org,
project and due date, how many open tasks (neither completed nor cancelled) are due then.
``task_plan_counts``: per org, project, category, cycle and module, how many count there.
``task_totals``: ``task_counts`` without the assignee, a hundredth of its rows, for every
figure that does not group or filter by assignee.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0007_task_counts"
down_revision = "0006_state_entered_at"
branch_labels = None
depends_on = None

NO_ID = "'00000000-0000-0000-0000-000000000000'"
COUNTED = {
    "sqlite": "{r}.state_category != 'triage' AND {r}.is_draft = 0 "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
    "postgresql": "{r}.state_category != 'triage' AND NOT {r}.is_draft "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
}
# State-entry times as whole milliseconds since 2020-01-01: exact enough for flow's
# age in days, and a bucket's sum stays far inside a 64-bit integer (40M tasks).
EPOCH = {
    "sqlite": "CAST(round((julianday({r}.state_entered_at) - 2458849.5) * 86400000.0) AS INTEGER)",
    "postgresql": "round(extract(epoch FROM {r}.state_entered_at - timestamp '2020-01-01') * 1000)::bigint",
}
OPEN_DUE = " AND {r}.due_date IS NOT NULL AND {r}.state_category NOT IN ('completed', 'cancelled')"

# name: (key columns, conflict target, extra predicate, sums {column: expression},
#        the task columns whose change can move a task between rows or in or out)
ROLLUPS = {
    "task_counts": (
        ["org_id", "project_id", "state_id", "state_category", "priority", "kind", "assignee_id"],
        "org_id, project_id, state_id, state_category, priority, kind, "
        f"coalesce(assignee_id, {NO_ID})",
        "",
        {"entered_ms": EPOCH},
        "state_entered_at",
    ),
    "task_totals": (
        ["org_id", "project_id", "state_id", "state_category", "priority", "kind"],
        "org_id, project_id, state_id, state_category, priority, kind",
        "",
        {"entered_ms": EPOCH},
        "state_entered_at",
    ),
    "task_due_counts": (
        ["org_id", "project_id", "due_date"],
        "org_id, project_id, due_date",
        OPEN_DUE,
        {},
        "due_date",
    ),
    "task_plan_counts": (
        ["org_id", "project_id", "state_category", "cycle_id", "module_id"],
        "org_id, project_id, state_category, "
        f"coalesce(cycle_id, {NO_ID}), coalesce(module_id, {NO_ID})",
        "",
        {},
        "cycle_id",
    ),
}
ALWAYS_WATCHED = [
    "org_id",
    "project_id",
    "state_id",
    "state_category",
    "is_draft",
    "archived_at",
    "deleted_at",
]
WATCHED_EXTRA = {
    "task_counts": ["priority", "kind", "assignee_id"],
    "task_totals": ["priority", "kind"],
    "task_due_counts": [],
    "task_plan_counts": ["module_id"],
}
#: Keys that may be NULL, compared null-safely when a task leaves its row.
NULLABLE = {"assignee_id", "cycle_id", "module_id"}


def _predicate(name, dialect, r):
    return COUNTED[dialect].format(r=r) + ROLLUPS[name][2].format(r=r)


def _same_row(name, dialect, r):
    keys = ROLLUPS[name][0]
    null_safe = "IS" if dialect == "sqlite" else "IS NOT DISTINCT FROM"
    return " AND ".join(f"{k} {null_safe if k in NULLABLE else '='} {r}.{k}" for k in keys)


def _add(name, dialect, r, guard=None):
    keys, conflict, _, sums, _ = ROLLUPS[name]
    columns = ", ".join([*keys, "n", *sums])
    values = ", ".join(
        [*(f"{r}.{k}" for k in keys), "1", *(e[dialect].format(r=r) for e in sums.values())]
    )
    updates = ", ".join([f"n = {name}.n + 1", *(f"{c} = {name}.{c} + excluded.{c}" for c in sums)])
    return (
        f"INSERT INTO {name} ({columns}) SELECT {values} WHERE {guard or 'true'} "
        f"ON CONFLICT ({conflict}) DO UPDATE SET {updates}"
    )


def _remove(name, dialect, r, guard=None):
    _, _, _, sums, _ = ROLLUPS[name]
    sets = ", ".join(
        ["n = n - 1", *(f"{c} = {c} - {e[dialect].format(r=r)}" for c, e in sums.items())]
    )
    where = _same_row(name, dialect, r) + (f" AND {guard}" if guard else "")
    return f"UPDATE {name} SET {sets} WHERE {where}; DELETE FROM {name} WHERE {where} AND n <= 0"


def _watched(name):
    return ", ".join([*ALWAYS_WATCHED, *WATCHED_EXTRA[name], ROLLUPS[name][4]])


def _create_triggers(name, dialect):
    new, old = _predicate(name, dialect, "NEW"), _predicate(name, dialect, "OLD")
    if dialect == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION {name}_keep() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP IN ('UPDATE', 'DELETE') AND {old} THEN
                {_remove(name, dialect, "OLD")};
              END IF;
              IF TG_OP IN ('INSERT', 'UPDATE') AND {new} THEN
                {_add(name, dialect, "NEW")};
              END IF;
              RETURN NULL;
            END $$
            """
        )
        op.execute(
            f"CREATE TRIGGER {name}_on_insert_delete AFTER INSERT OR DELETE ON tasks "
            f"FOR EACH ROW EXECUTE FUNCTION {name}_keep()"
        )
        op.execute(
            f"CREATE TRIGGER {name}_on_update AFTER UPDATE OF {_watched(name)} ON tasks "
            f"FOR EACH ROW EXECUTE FUNCTION {name}_keep()"
        )
        return
    op.execute(
        f"CREATE TRIGGER {name}_on_insert AFTER INSERT ON tasks "
        f"WHEN {new} BEGIN {_add(name, dialect, 'NEW')}; END"
    )
    op.execute(
        f"CREATE TRIGGER {name}_on_delete AFTER DELETE ON tasks "
        f"WHEN {old} BEGIN {_remove(name, dialect, 'OLD')}; END"
    )
    op.execute(
        f"CREATE TRIGGER {name}_on_update AFTER UPDATE OF {_watched(name)} ON tasks "
        f"BEGIN {_remove(name, dialect, 'OLD', old)}; {_add(name, dialect, 'NEW', new)}; END"
    )


def _backfill(name, dialect):
    keys, _, _, sums, _ = ROLLUPS[name]
    columns = ", ".join([*keys, "n", *sums])
    aggregates = ", ".join(
        ["count(*)", *(f"sum({e[dialect].format(r='tasks')})" for e in sums.values())]
    )
    op.execute(
        f"INSERT INTO {name} ({columns}) SELECT {', '.join(keys)}, {aggregates} FROM tasks "
        f"WHERE {_predicate(name, dialect, 'tasks')} GROUP BY {', '.join(keys)}"
    )


def _owner_keys():
    return [
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
    ]


def upgrade():
    op.create_table(
        "task_counts",
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("state_id", sa.Uuid(), nullable=False),
        sa.Column("state_category", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("assignee_id", sa.Uuid(), nullable=True),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("entered_ms", sa.BigInteger(), nullable=False),
        *_owner_keys(),
        sa.ForeignKeyConstraint(["state_id"], ["states.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["assignee_id"], ["accounts.id"], ondelete="CASCADE"),
    )
    op.create_table(
        "task_totals",
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("state_id", sa.Uuid(), nullable=False),
        sa.Column("state_category", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("entered_ms", sa.BigInteger(), nullable=False),
        *_owner_keys(),
        sa.ForeignKeyConstraint(["state_id"], ["states.id"], ondelete="CASCADE"),
    )
    op.create_table(
        "task_due_counts",
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        *_owner_keys(),
    )
    op.create_table(
        "task_plan_counts",
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("state_category", sa.String(length=16), nullable=False),
        sa.Column("cycle_id", sa.Uuid(), nullable=True),
        sa.Column("module_id", sa.Uuid(), nullable=True),
        sa.Column("n", sa.Integer(), nullable=False),
        *_owner_keys(),
        sa.ForeignKeyConstraint(["cycle_id"], ["cycles.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["module_id"], ["modules.id"], ondelete="CASCADE"),
    )
    dialect = op.get_bind().dialect.name
    for name, (_, conflict, _, _, _) in ROLLUPS.items():
        op.execute(f"CREATE UNIQUE INDEX ux_{name}_bucket ON {name} ({conflict})")
        _create_triggers(name, dialect)
        _backfill(name, dialect)


def downgrade():
    dialect = op.get_bind().dialect.name
    for name in ROLLUPS:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {name}_on_update ON tasks")
            op.execute(f"DROP TRIGGER IF EXISTS {name}_on_insert_delete ON tasks")
            op.execute(f"DROP FUNCTION IF EXISTS {name}_keep()")
        else:
            for event in ("update", "delete", "insert"):
                op.execute(f"DROP TRIGGER IF EXISTS {name}_on_{event}")
        op.drop_table(name)
