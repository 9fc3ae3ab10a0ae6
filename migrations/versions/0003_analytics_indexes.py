"""analytics: widen the covering index of the tasks that count

Revision ID: 0003_analytics
Revises: 0002_domains

Workload needs ``completed_at`` (completed in the last 30 days) and the status
dimension needs ``state_id``; SQLite also needs the predicate's columns in the index
to read it as covering (3.40 checks columns, not the predicate). With them, every
whole-org rollup is an index-only scan on PostgreSQL and a covering-index scan on
SQLite.
The predicate is unchanged (it must match how the scope query renders).
"""

from alembic import op
import sqlalchemy as sa

revision = "0003_analytics"
down_revision = "0002_domains"
branch_labels = None
depends_on = None

PREDICATE = {
    dialect: f"state_category != 'triage' AND is_draft = {false} "
    "AND archived_at IS NULL AND deleted_at IS NULL"
    for dialect, false in (("sqlite", "0"), ("postgresql", "false"))
}
OLD = ["org_id", "state_category", "priority", "kind", "assignee_id", "due_date", "project_id"]
# The predicate's own columns close the list: constant inside the index, nearly free,
# but SQLite only calls an index covering when every referenced column is in it.
NEW = [*OLD, "state_id", "completed_at", "is_draft", "archived_at", "deleted_at"]


def _create(columns):
    op.create_index(
        "ix_tasks_counted",
        "tasks",
        columns,
        sqlite_where=sa.text(PREDICATE["sqlite"]),
        postgresql_where=sa.text(PREDICATE["postgresql"]),
    )


def upgrade():
    op.drop_index("ix_tasks_counted", table_name="tasks")
    _create(NEW)


def downgrade():
    op.drop_index("ix_tasks_counted", table_name="tasks")
    _create(OLD)
