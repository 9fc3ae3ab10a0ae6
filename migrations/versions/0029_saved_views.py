"""Saved views of a project's list or board (issue 29, docs/saved_views.md)

Revision ID: 0029_saved_views
Revises: 0028_cycle_weeks
Create Date: 2026-11-27

One row per saved view; it goes with its project, its owner and its org (cascades),
so deleting a project needs no cleanup of views elsewhere.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0029_saved_views"
down_revision = "0028_cycle_weeks"
branch_labels = None
depends_on = None


def _fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "saved_views",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("org_id", sa.Uuid(), _fk("orgs"), nullable=False),
        sa.Column("project_id", sa.Uuid(), _fk("projects"), nullable=False),
        sa.Column("owner_id", sa.Uuid(), _fk("accounts"), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("pql", sa.Text(), nullable=False),
        sa.Column("sort", sa.String(16), nullable=False),
        sa.Column("direction", sa.String(4), nullable=False),
        sa.Column("group_by", sa.String(16), nullable=True),
        sa.Column("columns", sa.JSON(), nullable=True),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("project_id", "owner_id", "name", name="uq_saved_views_name"),
    )
    op.create_index("ix_saved_views_project", "saved_views", ["project_id", "shared"])
    op.create_index("ix_saved_views_org_id", "saved_views", ["org_id"])
    op.create_index("ix_saved_views_owner_id", "saved_views", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_saved_views_owner_id", table_name="saved_views")
    op.drop_index("ix_saved_views_org_id", table_name="saved_views")
    op.drop_index("ix_saved_views_project", table_name="saved_views")
    op.drop_table("saved_views")
