"""sso connections, group mappings, sign-in attempts

Revision ID: 0003_sso
Revises: 0002_domains
Create Date: 2026-11-22 04:10:00

"""

import sqlalchemy as sa
from alembic import op

import workspace.types

revision = "0003_sso"
down_revision = "0002_domains"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "sso_connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("email_domain", sa.String(length=253), nullable=False),
        sa.Column("issuer_url", sa.String(length=500), nullable=False),
        sa.Column("client_id", sa.String(length=500), nullable=False),
        sa.Column("client_secret_sealed", sa.String(length=2000), nullable=False),
        sa.Column("redirect_uri", sa.String(length=500), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("sync_groups_on_login", sa.Boolean(), nullable=False),
        sa.Column("groups_claim", sa.String(length=100), nullable=False),
        sa.Column("remove_stale_synced_memberships", sa.Boolean(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_sso_connections_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_connections")),
        sa.UniqueConstraint("email_domain", name=op.f("uq_sso_connections_email_domain")),
        sa.UniqueConstraint("org_id", name=op.f("uq_sso_connections_org_id")),
    )
    op.create_table(
        "sso_group_mappings",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("idp_group", sa.String(length=256), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_sso_group_mappings_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_sso_group_mappings_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_group_mappings")),
        sa.UniqueConstraint(
            "org_id",
            "idp_group",
            "project_id",
            name=op.f("uq_sso_group_mappings_org_id_idp_group_project_id"),
        ),
    )
    with op.batch_alter_table("sso_group_mappings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sso_group_mappings_org_id"), ["org_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_sso_group_mappings_project_id"), ["project_id"], unique=False
        )
    op.create_table(
        "sso_attempts",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("nonce", sa.String(length=100), nullable=False),
        sa.Column("code_verifier_sealed", sa.String(length=500), nullable=False),
        sa.Column("browser_hash", sa.String(length=64), nullable=False),
        sa.Column("next_path", sa.String(length=500), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_sso_attempts_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_attempts")),
    )
    with op.batch_alter_table("sso_attempts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sso_attempts_org_id"), ["org_id"], unique=False)


def downgrade():
    with op.batch_alter_table("sso_attempts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sso_attempts_org_id"))
    op.drop_table("sso_attempts")
    with op.batch_alter_table("sso_group_mappings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sso_group_mappings_project_id"))
        batch_op.drop_index(batch_op.f("ix_sso_group_mappings_org_id"))
    op.drop_table("sso_group_mappings")
    op.drop_table("sso_connections")
