"""the counts by assignee without the kind: a quarter of task_counts' rows for the
reads grouped or filtered by assignee that do not touch the kind (pivot by assignee
and status, workload widgets, the custom chart by assignee)

Revision ID: 0010_task_assignee_counts
Revises: 0009_task_done_counts
Create Date: 2026-11-24

Kept by the same triggers as ``task_counts`` (migration 0007), whose builders this
revision loads from that file rather than copying them: a revision never changes, so
they are as fixed as a copy would be.
"""

import importlib.util
from pathlib import Path

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0010_task_assignee_counts"
down_revision = "0009_task_done_counts"
branch_labels = None
depends_on = None

NAME = "task_assignee_counts"
KEYS = ["org_id", "project_id", "state_id", "state_category", "priority", "assignee_id"]


def _counts_revision():
    """Migration 0007's module, with this table added to what its builders know."""
    path = Path(__file__).with_name("0007_task_counts.py")
    spec = importlib.util.spec_from_file_location("revision_0007_task_counts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ROLLUPS[NAME] = (
        KEYS,
        "org_id, project_id, state_id, state_category, priority, "
        f"coalesce(assignee_id, {module.NO_ID})",
        "",
        {},
        "assignee_id",
    )
    module.WATCHED_EXTRA[NAME] = ["priority"]
    return module


def upgrade():
    counts = _counts_revision()
    op.create_table(
        NAME,
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("state_id", sa.Uuid(), nullable=False),
        sa.Column("state_category", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.String(length=16), nullable=False),
        sa.Column("assignee_id", sa.Uuid(), nullable=True),
        sa.Column("n", sa.Integer(), nullable=False),
        *counts._owner_keys(),
        sa.ForeignKeyConstraint(["state_id"], ["states.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["assignee_id"], ["accounts.id"], ondelete="CASCADE"),
    )
    dialect = op.get_bind().dialect.name
    op.execute(f"CREATE UNIQUE INDEX ux_{NAME}_bucket ON {NAME} ({counts.ROLLUPS[NAME][1]})")
    counts._create_triggers(NAME, dialect)
    counts._backfill(NAME, dialect)


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_update ON tasks")
        op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_insert_delete ON tasks")
        op.execute(f"DROP FUNCTION IF EXISTS {NAME}_keep()")
    else:
        for event in ("update", "delete", "insert"):
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event}")
    op.drop_table(NAME)
