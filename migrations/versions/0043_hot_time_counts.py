"""The time series' counts and the cycle-time histogram are updated in place (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0043_hot_time_counts
Revises: 0042_flow_first_change
Create Date: 2026-11-30

PostgreSQL only (SQLite keeps each table in its key, WITHOUT ROWID). ``task_time_counts``
(0023) and ``task_cycle_weeks`` (0028) carried their counts in their primary key
(``INCLUDE``) for index-only reads. An index that holds a column makes every update of
that column a new index entry and a dead row version the key's unique check walks on
the next upsert of the bucket, until vacuum: no update of either table was HOT (0 of
19,552 and 11,900 on a scratch database), and with many writers completing tasks in
the same hour each upsert walked longer. Without the counts in the key, an update of a
count changes no indexed column and stays on its page (HOT), as every other rollup's
does. Reads then fetch the rows from the heap: measured in docs/scaling.md.
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "0043_hot_time_counts"
down_revision = "0042_flow_first_change"
branch_labels = None
depends_on = None

#: Each table's key (with 0038's slot) and the counts 0023 and 0028 put in it.
KEYS = {
    "task_time_counts": ("org_id, grain, starts_at, project_id, slot", "created, completed"),
    "task_cycle_weeks": ("org_id, week, bucket, slot", "n"),
}


def _primary_keys(with_counts: bool) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, (key, counts) in KEYS.items():
        include = f" INCLUDE ({counts})" if with_counts else ""
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT pk_{table}")
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT pk_{table} PRIMARY KEY ({key}){include}")


def upgrade():
    _primary_keys(with_counts=False)


def downgrade():
    _primary_keys(with_counts=True)
