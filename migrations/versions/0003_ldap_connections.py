"""ldap connections

Revision ID: 0003_ldap
Revises: 0002_domains
Create Date: 2026-11-22 03:50:00

"""

from alembic import op
import sqlalchemy as sa

import workspace.types  # noqa: F401  (column types)


# revision identifiers, used by Alembic.
revision = "0003_ldap"
down_revision = "0002_domains"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "ldap_connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("server_uri", sa.String(length=500), nullable=False),
        sa.Column("bind_dn", sa.String(length=500), nullable=False),
        sa.Column("bind_password_sealed", sa.Text(), nullable=True),
        sa.Column("search_base", sa.String(length=500), nullable=False),
        sa.Column("search_filter", sa.String(length=1000), nullable=False),
        sa.Column("email_attribute", sa.String(length=100), nullable=False),
        sa.Column("given_name_attribute", sa.String(length=100), nullable=False),
        sa.Column("family_name_attribute", sa.String(length=100), nullable=False),
        sa.Column("use_tls", sa.Boolean(), nullable=False),
        sa.Column("ca_cert", sa.Text(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_ldap_connections_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ldap_connections")),
        sa.UniqueConstraint("org_id", name=op.f("uq_ldap_connections_org_id")),
    )


def downgrade():
    op.drop_table("ldap_connections")
