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


def upgrade():
    pass


def downgrade():
    pass
