"""Tasks created per day, a maintained rollup for time series (docs/analytics.md#time)

Revision ID: 0020_created_days
Revises: 0019_org_role_sync
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0020_created_days"
down_revision = "0019_org_role_sync"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
