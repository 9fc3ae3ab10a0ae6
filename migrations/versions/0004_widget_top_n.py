"""a widget's top N: the largest categories shown, the rest folded into "Other"

Revision ID: 0004_widget_top_n
Revises: 0003_everyday_workspace
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0004_widget_top_n"
down_revision = "0003_everyday_workspace"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("dashboard_widgets", schema=None) as batch_op:
        batch_op.add_column(sa.Column("top_n", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("dashboard_widgets", schema=None) as batch_op:
        batch_op.drop_column("top_n")
