"""SCIM tokens and identities

Revision ID: 0004_scim
Revises: 0002_domains
Create Date: 2026-11-22 03:50:00

"""

import sqlalchemy as sa
from alembic import op

import workspace.types  # noqa: F401  (column types)

revision = "0004_scim"
down_revision = "0002_domains"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "scim_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("last_used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_scim_tokens_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["accounts.id"],
            name=op.f("fk_scim_tokens_created_by_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_tokens")),
        sa.UniqueConstraint("org_id", name=op.f("uq_scim_tokens_org_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_scim_tokens_token_hash")),
    )
    op.create_table(
        "scim_identities",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("member_id", sa.Uuid(), nullable=False),
        sa.Column("user_name", sa.String(length=320), nullable=False),
        sa.Column("user_name_key", sa.String(length=320), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("email_keys", sa.String(length=4000), nullable=False),
        sa.Column("deleted_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_scim_identities_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["member_id"],
            ["org_members.id"],
            name=op.f("fk_scim_identities_member_id_org_members"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_identities")),
        sa.UniqueConstraint("member_id", name=op.f("uq_scim_identities_member_id")),
    )
    with op.batch_alter_table("scim_identities", schema=None) as batch_op:
        batch_op.create_index(
            "ix_scim_identities_org_external_id", ["org_id", "external_id"], unique=False
        )
        batch_op.create_index(
            "uq_scim_identities_org_user_name",
            ["org_id", "user_name_key"],
            unique=True,
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )


def downgrade():
    with op.batch_alter_table("scim_identities", schema=None) as batch_op:
        batch_op.drop_index("uq_scim_identities_org_user_name")
        batch_op.drop_index("ix_scim_identities_org_external_id")
    op.drop_table("scim_identities")
    op.drop_table("scim_tokens")
