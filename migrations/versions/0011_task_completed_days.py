"""workload's rollup: completed tasks per org, UTC day of completion and assignee, kept
by triggers on the tasks (docs/analytics.md#maintained-rollups)

Revision ID: 0011_task_completed_days
Revises: 0010_task_assignee_counts
Create Date: 2026-11-24

Workload counts, per assignee, the completed tasks that count whose ``completed_at``
falls in the last 30 days. A range read of the completed tasks grows with the org's
pace (22,000 rows a month at 1M tasks, 200,000 at 10M); this table holds one row per
assignee and day, so a month is at most 30 rows per assignee whatever the pace, and
the read adds the part-day at the window's start from the index ``ix_tasks_completed``.

Days, not hours: the window is zone-free (30 days back from now, to the second), so
only its first day is partial; hours would give a row per completion at this pace.
No project: an org-wide read is the one that must be fast; a project's workload
reads the index as before. Unassigned tasks are left out, as workload leaves them out.

The triggers fire only when the task was or is such a completed task, so creating a
task or moving it between open states costs one condition, not a write.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0011_task_completed_days"
down_revision = "0010_task_assignee_counts"
branch_labels = None
depends_on = None

NAME = "task_completed_days"
KEY = "org_id, completed_on, assignee_id"
COUNTED = {
    "sqlite": "{r}.state_category != 'triage' AND {r}.is_draft = 0 "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
    "postgresql": "{r}.state_category != 'triage' AND NOT {r}.is_draft "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
}
#: The UTC day of a completion, in each database's own storage of a timestamp
#: (SQLite: SQLAlchemy's 'YYYY-MM-DD HH:MM:SS.ffffff' text; PostgreSQL: naive UTC).
DAY = {
    "sqlite": "substr({r}.completed_at, 1, 10)",
    "postgresql": "CAST({r}.completed_at AS date)",
}
WATCHED = "org_id, assignee_id, completed_at, state_category, is_draft, archived_at, deleted_at"


def _kept(dialect, r):
    """Whether task ``r`` ('OLD' or 'NEW') is in the rollup."""
    return (
        "(" + COUNTED[dialect].format(r=r) + f" AND {r}.state_category = 'completed' "
        f"AND {r}.completed_at IS NOT NULL AND {r}.assignee_id IS NOT NULL)"
    )


def _add(dialect, r, guard="true"):
    return (
        f"INSERT INTO {NAME} ({KEY}, n) SELECT {r}.org_id, {DAY[dialect].format(r=r)}, "
        f"{r}.assignee_id, 1 WHERE {guard} "
        f"ON CONFLICT ({KEY}) DO UPDATE SET n = {NAME}.n + 1"
    )


def _remove(dialect, r, guard="true"):
    own = (
        f"{guard} AND org_id = {r}.org_id AND completed_on = {DAY[dialect].format(r=r)} "
        f"AND assignee_id = {r}.assignee_id"
    )
    return f"UPDATE {NAME} SET n = n - 1 WHERE {own}; DELETE FROM {NAME} WHERE {own} AND n <= 0"


def _create_triggers(dialect):
    old, new = _kept(dialect, "OLD"), _kept(dialect, "NEW")
    if dialect == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION {NAME}_keep() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP IN ('UPDATE', 'DELETE') AND {old} THEN
                {_remove(dialect, "OLD")};
              END IF;
              IF TG_OP IN ('INSERT', 'UPDATE') AND {new} THEN
                {_add(dialect, "NEW")};
              END IF;
              RETURN NULL;
            END $$
            """
        )
        for event, when in (
            ("INSERT", new),
            ("DELETE", old),
            (f"UPDATE OF {WATCHED}", f"{old} OR {new}"),
        ):
            op.execute(
                f"CREATE TRIGGER {NAME}_on_{event.split()[0].lower()} AFTER {event} ON tasks "
                f"FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION {NAME}_keep()"
            )
        return
    op.execute(
        f"CREATE TRIGGER {NAME}_on_insert AFTER INSERT ON tasks WHEN {new} "
        f"BEGIN {_add(dialect, 'NEW')}; END"
    )
    op.execute(
        f"CREATE TRIGGER {NAME}_on_delete AFTER DELETE ON tasks WHEN {old} "
        f"BEGIN {_remove(dialect, 'OLD')}; END"
    )
    # Each half under its own condition (SQLite triggers have no IF).
    op.execute(
        f"CREATE TRIGGER {NAME}_on_update AFTER UPDATE OF {WATCHED} ON tasks "
        f"WHEN {old} OR {new} BEGIN "
        f"{_remove(dialect, 'OLD', old)}; {_add(dialect, 'NEW', new)}; END"
    )


def upgrade():
    op.create_table(
        NAME,
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("completed_on", sa.Date(), nullable=False),
        sa.Column("assignee_id", sa.Uuid(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["assignee_id"], ["accounts.id"], ondelete="CASCADE"),
    )
    op.execute(f"CREATE UNIQUE INDEX ux_{NAME}_bucket ON {NAME} ({KEY})")
    dialect = op.get_bind().dialect.name
    _create_triggers(dialect)
    op.execute(
        f"INSERT INTO {NAME} ({KEY}, n) SELECT org_id, {DAY[dialect].format(r='tasks')}, "
        f"assignee_id, count(*) FROM tasks WHERE {_kept(dialect, 'tasks')} "
        f"GROUP BY org_id, {DAY[dialect].format(r='tasks')}, assignee_id"
    )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event} ON tasks")
        op.execute(f"DROP FUNCTION IF EXISTS {NAME}_keep()")
    else:
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event}")
    op.drop_table(NAME)
