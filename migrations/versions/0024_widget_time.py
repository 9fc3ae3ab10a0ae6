"""Time dimensions on dashboard widgets and a dashboard-wide date range (docs/dashboards.md)

Revision ID: 0024_widget_time
Revises: 0023_time_counts
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0024_widget_time"
down_revision = "0023_time_counts"
branch_labels = None
depends_on = None


_RANGE = ("range_preset", "range_from", "range_to")


def _range_columns() -> list[sa.Column]:
    # A preset name (last_30_days ...) or a custom first/last day, both in the org's
    # zone; all null: no range (the series' default, or the dashboard's).
    return [
        sa.Column("range_preset", sa.String(16), nullable=True),
        sa.Column("range_from", sa.Date(), nullable=True),
        sa.Column("range_to", sa.Date(), nullable=True),
    ]


def upgrade():
    # batch_alter_table: SQLite adds columns in place, PostgreSQL as plain ALTERs.
    with op.batch_alter_table("dashboard_widgets") as batch:
        batch.add_column(
            sa.Column("interval", sa.String(16), nullable=False, server_default="week")
        )
        for column in _range_columns():
            batch.add_column(column)
        batch.add_column(sa.Column("split", sa.String(16), nullable=True))
    with op.batch_alter_table("dashboards") as batch:
        for column in _range_columns():
            batch.add_column(column)


def downgrade():
    with op.batch_alter_table("dashboards") as batch:
        for name in reversed(_RANGE):
            batch.drop_column(name)
    with op.batch_alter_table("dashboard_widgets") as batch:
        batch.drop_column("split")
        for name in reversed(_RANGE):
            batch.drop_column(name)
        batch.drop_column("interval")
