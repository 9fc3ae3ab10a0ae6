"""SSO connections name extra scopes to request (docs/sso.md#scopes)

Revision ID: 0012_sso_extra_scopes
Revises: 0011_task_completed_days
Create Date: 2026-11-27

Sign-in asks for ``openid email profile``. Keycloak, for one, sends no ``groups``
claim unless its ``groups`` scope is requested (when that scope is optional), so an
org admin names the scopes their provider needs; space-separated, empty by default.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0012_sso_extra_scopes"
down_revision = "0011_task_completed_days"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("sso_connections") as batch:
        batch.add_column(
            sa.Column("extra_scopes", sa.String(200), nullable=False, server_default="")
        )


def downgrade():
    with op.batch_alter_table("sso_connections") as batch:
        batch.drop_column("extra_scopes")
