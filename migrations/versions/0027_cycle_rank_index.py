"""Cycle time's ranks read by cycle time (docs/analytics.md#flow-over-time)

The percentiles and the slowest points of a range are a narrow band of cycle times:
an index led by the org and the cycle time reads that band alone, where the
completion-led index made each read walk the range's every completion again.

Revision ID: 0027_cycle_rank_index
Revises: 0026_inbox
Create Date: 2026-11-27
"""

from alembic import op


# revision identifiers, used by Alembic.
revision = "0027_cycle_rank_index"
down_revision = "0026_inbox"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_task_cycle_times_cycle",
        "task_cycle_times",
        ["org_id", "cycle_us", "completed_at", "project_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_task_cycle_times_cycle", table_name="task_cycle_times")
