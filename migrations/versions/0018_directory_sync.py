"""Directory sync on a schedule (docs/ldap.md#scheduled-sync)

Revision ID: 0018_directory_sync
Revises: 0017_session_policy
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0018_directory_sync"
down_revision = "0017_session_policy"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
