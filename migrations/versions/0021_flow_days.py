"""Status categories per day for the cumulative flow and cycle time (docs/analytics.md#flow)

Revision ID: 0021_flow_days
Revises: 0020_created_days
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0021_flow_days"
down_revision = "0020_created_days"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
