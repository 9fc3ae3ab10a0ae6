"""Org setting: the day weeks start on (docs/analytics.md#time)

Revision ID: 0022_week_start
Revises: 0021_flow_days
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0022_week_start"
down_revision = "0021_flow_days"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
