"""what real peers need: provider quirks and Azure's api-version, given and family
names on accounts, directory group sync settings

Revision ID: 0005_customer_peers
Revises: 0004_widget_top_n
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0005_customer_peers"
down_revision = "0004_widget_top_n"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("ai_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("api_version", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("quirks", sa.Text(), nullable=True))
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("given_name", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("family_name", sa.String(length=200), nullable=True))
    with op.batch_alter_table("ldap_connections", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "sync_groups_on_login", sa.Boolean(), nullable=False, server_default=sa.false()
            )
        )
        batch_op.add_column(
            sa.Column(
                "remove_stale_synced_memberships",
                sa.Boolean(),
                nullable=False,
                server_default=sa.false(),
            )
        )
        batch_op.add_column(sa.Column("group_search_base", sa.String(length=500), nullable=True))
        batch_op.add_column(
            sa.Column(
                "group_membership", sa.String(length=16), nullable=False, server_default="auto"
            )
        )


def downgrade():
    with op.batch_alter_table("ldap_connections", schema=None) as batch_op:
        batch_op.drop_column("group_membership")
        batch_op.drop_column("group_search_base")
        batch_op.drop_column("remove_stale_synced_memberships")
        batch_op.drop_column("sync_groups_on_login")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_column("family_name")
        batch_op.drop_column("given_name")
    with op.batch_alter_table("ai_settings", schema=None) as batch_op:
        batch_op.drop_column("quirks")
        batch_op.drop_column("api_version")
