"""Directory sync on a schedule (docs/ldap.md#scheduled-sync)

Revision ID: 0018_directory_sync
Revises: 0017_session_policy
Create Date: 2026-11-27
"""

from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0018_directory_sync"
down_revision = "0017_session_policy"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("ldap_connections") as batch:
        batch.add_column(
            sa.Column("sync_every_minutes", sa.Integer(), nullable=False, server_default="60")
        )
        batch.add_column(sa.Column("last_sync_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("last_sync", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("ldap_connections") as batch:
        batch.drop_column("last_sync")
        batch.drop_column("last_sync_at")
        batch.drop_column("sync_every_minutes")
