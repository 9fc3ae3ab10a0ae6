"""dashboards and their widgets

Revision ID: 0003_dashboards
Revises: 0002_domains
Create Date: 2026-11-22 04:20:00

"""

import sqlalchemy as sa
from alembic import op

import workspace.types

revision = "0003_dashboards"
down_revision = "0002_domains"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "dashboards",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("visibility", sa.String(length=16), nullable=False),
        sa.Column("pql_filter", sa.Text(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_dashboards_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["accounts.id"],
            name=op.f("fk_dashboards_owner_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dashboards")),
    )
    with op.batch_alter_table("dashboards", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_dashboards_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_dashboards_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "dashboard_widgets",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("dashboard_id", sa.Uuid(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("chart_type", sa.String(length=16), nullable=False),
        sa.Column("metric", sa.String(length=16), nullable=False),
        sa.Column("dimension", sa.String(length=16), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=True),
        sa.Column("filter", sa.Text(), nullable=True),
        sa.Column("span", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["dashboard_id"],
            ["dashboards.id"],
            name=op.f("fk_dashboard_widgets_dashboard_id_dashboards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_dashboard_widgets_project_id_projects"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dashboard_widgets")),
    )
    with op.batch_alter_table("dashboard_widgets", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_dashboard_widgets_dashboard_id"), ["dashboard_id"], unique=False
        )


def downgrade():
    with op.batch_alter_table("dashboard_widgets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dashboard_widgets_dashboard_id"))
    op.drop_table("dashboard_widgets")
    with op.batch_alter_table("dashboards", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dashboards_owner_id"))
        batch_op.drop_index(batch_op.f("ix_dashboards_org_id"))
    op.drop_table("dashboards")
