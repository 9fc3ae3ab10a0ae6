"""flow in one read: when each task entered its current state (the maintained rollup
of migration 0007 sums it per bucket)

Revision ID: 0006_state_entered_at
Revises: 0005_customer_peers
Create Date: 2026-11-24

``tasks.state_entered_at`` is the time of the task's latest ``state`` history row,
else its creation: exactly what flow used to look up per open task. The backfill is
one UPDATE: on PostgreSQL joined to the history aggregated once (a hash join, not a
lookup per task), on SQLite a lookup per task in a covering index built for it and
dropped afterwards.
"""

from alembic import op
import sqlalchemy as sa

import workspace.types


# revision identifiers, used by Alembic.
revision = "0006_state_entered_at"
down_revision = "0005_customer_peers"
branch_labels = None
depends_on = None


POSTGRES_BACKFILL = """
UPDATE tasks SET state_entered_at = COALESCE(latest.at, tasks.created_at)
FROM tasks AS t
LEFT JOIN (
    SELECT task_id, max(created_at) AS at FROM task_activity
    WHERE field = 'state' GROUP BY task_id
) AS latest ON latest.task_id = t.id
WHERE t.id = tasks.id
"""

SQLITE_BACKFILL = """
UPDATE tasks SET state_entered_at = COALESCE(
    (SELECT max(a.created_at) FROM task_activity AS a
     WHERE a.task_id = tasks.id AND a.field = 'state'),
    created_at
)
"""


def upgrade():
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.add_column(
            "tasks", sa.Column("state_entered_at", workspace.types.UTCDateTime(), nullable=True)
        )
        op.execute(POSTGRES_BACKFILL)
        op.alter_column("tasks", "state_entered_at", nullable=False)
    else:
        # SQLite adds NOT NULL in place only with a constant default; the backfill
        # overwrites it on every row, and the model always writes the column. A batch
        # copy of the table instead would drop it, and with foreign keys on, the
        # drop cascades into the history and comments.
        op.add_column(
            "tasks",
            sa.Column(
                "state_entered_at",
                workspace.types.UTCDateTime(),
                nullable=False,
                server_default=sa.text("'1970-01-01 00:00:00.000000'"),
            ),
        )
        # Index-only lookups per task; without it each one reads the history rows.
        op.execute(
            "CREATE INDEX tmp_task_activity_state_by_task ON task_activity (task_id, created_at) "
            "WHERE field = 'state'"
        )
        op.execute(SQLITE_BACKFILL)
        op.execute("DROP INDEX tmp_task_activity_state_by_task")


def downgrade():
    # A plain DROP COLUMN (SQLite 3.35+): a batch copy would cascade as above.
    op.drop_column("tasks", "state_entered_at")
