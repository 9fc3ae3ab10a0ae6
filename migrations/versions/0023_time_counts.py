"""Tasks created and completed per hour, a maintained rollup for time series (docs/analytics.md#time)

Revision ID: 0023_time_counts
Revises: 0022_week_start
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0023_time_counts"
down_revision = "0022_week_start"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
