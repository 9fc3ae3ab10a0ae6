"""Enforced SSO per verified domain, with break-glass owners (docs/sso.md#enforced-sso)

Revision ID: 0016_enforced_sso
Revises: 0015_scim_oauth_clients
Create Date: 2026-11-27

Two new tables, nothing existing changes: ``sso_enforcements`` (one row per verified
domain on which an owner requires SSO, gone with the domain) and
``break_glass_owners`` (the owners who keep a password, with their last use).
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0016_enforced_sso"
down_revision = "0015_scim_oauth_clients"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "sso_enforcements",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "domain_id",
            sa.Uuid(),
            sa.ForeignKey("domains.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("enforced_by_id", sa.Uuid(), sa.ForeignKey("accounts.id", ondelete="SET NULL")),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_sso_enforcements_org_id", "sso_enforcements", ["org_id"])
    op.create_table(
        "break_glass_owners",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "member_id",
            sa.Uuid(),
            sa.ForeignKey("org_members.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("chosen_by_id", sa.Uuid(), sa.ForeignKey("accounts.id", ondelete="SET NULL")),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime()),
    )
    op.create_index("ix_break_glass_owners_org_id", "break_glass_owners", ["org_id"])


def downgrade():
    op.drop_index("ix_break_glass_owners_org_id", "break_glass_owners")
    op.drop_table("break_glass_owners")
    op.drop_index("ix_sso_enforcements_org_id", "sso_enforcements")
    op.drop_table("sso_enforcements")
