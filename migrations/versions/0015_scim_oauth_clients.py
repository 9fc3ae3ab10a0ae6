"""SCIM OAuth 2.0 client credentials (docs/scim.md#client-credentials)

Revision ID: 0015_scim_oauth_clients
Revises: 0014_scim_groups
Create Date: 2026-11-27

One OAuth client per org for SCIM, up to two live client secrets with an expiry
(rotation), and the access tokens the token endpoint issued; every secret and token
stored as SHA-256 only.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0015_scim_oauth_clients"
down_revision = "0014_scim_groups"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "scim_oauth_clients",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("client_id", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_scim_oauth_clients_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["accounts.id"],
            name=op.f("fk_scim_oauth_clients_created_by_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_oauth_clients")),
        sa.UniqueConstraint("org_id", name=op.f("uq_scim_oauth_clients_org_id")),
        sa.UniqueConstraint("client_id", name=op.f("uq_scim_oauth_clients_client_id")),
    )
    op.create_table(
        "scim_oauth_secrets",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("client_pk", sa.Uuid(), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("revoked_at", UTCDateTime(), nullable=True),
        sa.Column("created_by_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_pk"],
            ["scim_oauth_clients.id"],
            name=op.f("fk_scim_oauth_secrets_client_pk_scim_oauth_clients"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["accounts.id"],
            name=op.f("fk_scim_oauth_secrets_created_by_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_oauth_secrets")),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_scim_oauth_secrets_secret_hash")),
    )
    with op.batch_alter_table("scim_oauth_secrets", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scim_oauth_secrets_client_pk"), ["client_pk"], unique=False
        )
    op.create_table(
        "scim_access_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("secret_id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["secret_id"],
            ["scim_oauth_secrets.id"],
            name=op.f("fk_scim_access_tokens_secret_id_scim_oauth_secrets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_scim_access_tokens_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_access_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_scim_access_tokens_token_hash")),
    )
    with op.batch_alter_table("scim_access_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scim_access_tokens_secret_id"), ["secret_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_scim_access_tokens_org_id"), ["org_id"], unique=False)


def downgrade():
    op.drop_table("scim_access_tokens")
    op.drop_table("scim_oauth_secrets")
    op.drop_table("scim_oauth_clients")
