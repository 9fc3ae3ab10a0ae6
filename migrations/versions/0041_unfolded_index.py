"""The fold reads only the rollup rows outside slot 0, and runs every minute (issue 31, docs/scaling.md#reads-before-the-fold)

Revision ID: 0041_unfolded_index
Revises: 0040_one_cycle_recompute
Create Date: 2026-11-29

PostgreSQL only. Each slotted rollup gets a partial index of its rows outside slot 0,
the ones writers added since the last fold. The fold found them by reading every row
of all eleven tables, about a second at a million tasks, which was tolerable hourly;
left for an hour, though, a hot org's buckets hold up to 32 rows each and its reads
went from 28 to 207 ms, so the fold now runs every minute and must cost next to
nothing when there is little to fold. No writer changes a row's slot, so the rollups'
updates stay HOT.
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "0041_unfolded_index"
down_revision = "0040_one_cycle_recompute"
branch_labels = None
depends_on = None

#: The rollups with a slot column (0036, 0038), as of this revision.
SLOTTED = (
    "task_counts",
    "task_totals",
    "task_assignee_counts",
    "task_due_counts",
    "task_plan_counts",
    "task_done_counts",
    "task_completed_days",
    "task_time_counts",
    "task_cycle_weeks",
    "task_flow_hours",
    "task_flow_days",
)


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in SLOTTED:
        op.create_index(
            f"ix_{table}_unfolded",
            table,
            ["slot"],
            postgresql_where="slot <> 0",
        )


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in SLOTTED:
        op.drop_index(f"ix_{table}_unfolded", table_name=table)
