"""identity links and pending link requests

Revision ID: 0002_identity_links
Revises: 0001_initial
Create Date: 2026-11-23

Which org identity sources (SSO, LDAP, SCIM) may sign in or provision an account,
and the short-lived sign-ins waiting for the account's holder to confirm a link
(docs/security.md#identity-trust-and-account-linking).
"""

from alembic import op
import sqlalchemy as sa

import workspace.types


# revision identifiers, used by Alembic.
revision = "0002_identity_links"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "account_identity_links",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_account_identity_links_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_account_identity_links_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_account_identity_links")),
        sa.UniqueConstraint(
            "account_id",
            "org_id",
            "source",
            name=op.f("uq_account_identity_links_account_id_org_id_source"),
        ),
    )
    with op.batch_alter_table("account_identity_links", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_account_identity_links_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_account_identity_links_org_id"), ["org_id"], unique=False
        )

    op.create_table(
        "pending_identity_links",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("next_path", sa.String(length=500), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("expires_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_pending_identity_links_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_pending_identity_links_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_identity_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_pending_identity_links_token_hash")),
    )
    with op.batch_alter_table("pending_identity_links", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_pending_identity_links_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_pending_identity_links_org_id"), ["org_id"], unique=False
        )


def downgrade():
    with op.batch_alter_table("pending_identity_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pending_identity_links_org_id"))
        batch_op.drop_index(batch_op.f("ix_pending_identity_links_account_id"))
    op.drop_table("pending_identity_links")
    with op.batch_alter_table("account_identity_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_account_identity_links_org_id"))
        batch_op.drop_index(batch_op.f("ix_account_identity_links_account_id"))
    op.drop_table("account_identity_links")
