"""workload's recent completions: a partial index over the completed tasks that count

Revision ID: 0008_completed_index
Revises: 0007_task_counts
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0008_completed_index"
down_revision = "0007_task_counts"
branch_labels = None
depends_on = None

PREDICATE = {
    dialect: f"state_category != 'triage' AND is_draft = {false} "
    "AND archived_at IS NULL AND deleted_at IS NULL AND state_category = 'completed'"
    for dialect, false in (("sqlite", "0"), ("postgresql", "false"))
}


def upgrade():
    op.create_index(
        "ix_tasks_completed",
        "tasks",
        [
            "org_id",
            "completed_at",
            "assignee_id",
            "state_category",
            "is_draft",
            "archived_at",
            "deleted_at",
        ],
        unique=False,
        sqlite_where=sa.text(PREDICATE["sqlite"]),
        postgresql_where=sa.text(PREDICATE["postgresql"]),
    )


def downgrade():
    op.drop_index("ix_tasks_completed", table_name="tasks")
