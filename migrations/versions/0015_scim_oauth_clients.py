"""SCIM OAuth 2.0 client credentials (docs/scim.md#client-credentials)

Revision ID: 0015_scim_oauth_clients
Revises: 0014_scim_groups
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0015_scim_oauth_clients"
down_revision = "0014_scim_groups"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
