"""SCIM Groups and the groups each member holds from every source (docs/scim.md#groups)

Revision ID: 0014_scim_groups
Revises: 0013_jobs
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0014_scim_groups"
down_revision = "0013_jobs"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "scim_groups",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("display_name", sa.String(256), nullable=False),
        sa.Column("display_name_key", sa.String(256), nullable=False),
        sa.Column("external_id", sa.String(256)),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("org_id", "display_name_key"),
    )
    op.create_index("ix_scim_groups_org_external_id", "scim_groups", ["org_id", "external_id"])
    op.create_table(
        "scim_group_members",
        sa.Column(
            "group_id",
            sa.Uuid(),
            sa.ForeignKey("scim_groups.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "member_id",
            sa.Uuid(),
            sa.ForeignKey("org_members.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("display", sa.String(256)),
    )
    op.create_index("ix_scim_group_members_member_id", "scim_group_members", ["member_id"])
    op.create_table(
        "member_groups",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "account_id",
            sa.Uuid(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("group_name", sa.String(256), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("org_id", "account_id", "source", "group_name"),
    )
    op.create_index("ix_member_groups_account_id", "member_groups", ["account_id"])
    with op.batch_alter_table("project_members") as batch:
        batch.add_column(sa.Column("synced_source", sa.String(16)))


def downgrade():
    with op.batch_alter_table("project_members") as batch:
        batch.drop_column("synced_source")
    op.drop_index("ix_member_groups_account_id", table_name="member_groups")
    op.drop_table("member_groups")
    op.drop_index("ix_scim_group_members_member_id", table_name="scim_group_members")
    op.drop_table("scim_group_members")
    op.drop_index("ix_scim_groups_org_external_id", table_name="scim_groups")
    op.drop_table("scim_groups")
