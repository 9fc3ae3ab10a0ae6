"""Group mappings may grant the org's admin role (docs/sso.md#group-sync)

Revision ID: 0019_org_role_sync
Revises: 0018_directory_sync
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0019_org_role_sync"
down_revision = "0018_directory_sync"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
