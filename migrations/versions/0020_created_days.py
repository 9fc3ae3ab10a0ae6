"""Tasks created per day for time series: a partial index by org and creation time

Not a maintained rollup: a range read of this index counts 90 days of creations per
local day in one statement, in any zone (docs/analytics.md#time).

Revision ID: 0020_created_days
Revises: 0019_org_role_sync
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0020_created_days"
down_revision = "0019_org_role_sync"
branch_labels = None
depends_on = None

# The tasks that count, as COUNTED_TASKS_PREDICATE renders them when this was written.
PREDICATE = {
    dialect: f"state_category != 'triage' AND is_draft = {false} "
    "AND archived_at IS NULL AND deleted_at IS NULL"
    for dialect, false in (("sqlite", "0"), ("postgresql", "false"))
}


def upgrade():
    op.create_index(
        "ix_tasks_created",
        "tasks",
        [
            "org_id",
            "created_at",
            "state_category",
            "project_id",
            "is_draft",
            "archived_at",
            "deleted_at",
        ],
        unique=False,
        sqlite_where=sa.text(PREDICATE["sqlite"]),
        postgresql_where=sa.text(PREDICATE["postgresql"]),
    )


def downgrade():
    op.drop_index("ix_tasks_created", table_name="tasks")
