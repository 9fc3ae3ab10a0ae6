"""Per-org session lifetimes and sign-out that reaches the IdP (docs/security.md#sessions)

Revision ID: 0017_session_policy
Revises: 0016_enforced_sso
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = "0017_session_policy"
down_revision = "0016_enforced_sso"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
