"""Org setting: the day weeks start on (docs/analytics.md#time)

``orgs.week_start``: the English name of the weekday a week starts on, lower case
(``monday`` .. ``sunday``); Monday for every org that exists, as before (ISO 8601).
Time series' week buckets and their drill-down links follow it.

Revision ID: 0022_week_start
Revises: 0021_flow_days
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0022_week_start"
down_revision = "0021_flow_days"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("orgs") as batch:
        batch.add_column(
            sa.Column("week_start", sa.String(9), nullable=False, server_default="monday")
        )


def downgrade():
    with op.batch_alter_table("orgs") as batch:
        batch.drop_column("week_start")
