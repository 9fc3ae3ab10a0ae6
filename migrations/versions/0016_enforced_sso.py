"""Enforced SSO per verified domain, with break-glass owners (docs/sso.md#enforced-sso)

Revision ID: 0016_enforced_sso
Revises: 0015_scim_oauth_clients
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0016_enforced_sso"
down_revision = "0015_scim_oauth_clients"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
