"""SCIM Groups and the groups each member holds from every source (docs/scim.md#groups)

Revision ID: 0014_scim_groups
Revises: 0013_jobs
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0014_scim_groups"
down_revision = "0013_jobs"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
