"""Group mappings may grant the org's admin role (docs/sso.md#group-sync)

Revision ID: 0019_org_role_sync
Revises: 0018_directory_sync
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0019_org_role_sync"
down_revision = "0018_directory_sync"
branch_labels = None
depends_on = None


def upgrade():
    # A mapping without a project grants the org's admin role.
    with op.batch_alter_table("sso_group_mappings") as batch:
        batch.alter_column("project_id", existing_type=sa.Uuid(), nullable=True)
    with op.batch_alter_table("org_members") as batch:
        batch.add_column(sa.Column("role_source", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("synced_group", sa.String(length=255), nullable=True))
        batch.add_column(sa.Column("synced_source", sa.String(length=16), nullable=True))


def downgrade():
    op.execute("DELETE FROM sso_group_mappings WHERE project_id IS NULL")
    with op.batch_alter_table("org_members") as batch:
        batch.drop_column("synced_source")
        batch.drop_column("synced_group")
        batch.drop_column("role_source")
    with op.batch_alter_table("sso_group_mappings") as batch:
        batch.alter_column("project_id", existing_type=sa.Uuid(), nullable=False)
