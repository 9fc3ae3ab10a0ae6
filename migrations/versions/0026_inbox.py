"""Subscriptions, mentions and the inbox (issue 29, docs/inbox.md)

Revision ID: 0026_inbox
Revises: 0025_search
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0026_inbox"
down_revision = "0025_search"
branch_labels = None
depends_on = None


def _fk(table: str, ondelete: str = "CASCADE") -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete=ondelete)


def upgrade() -> None:
    op.create_table(
        "task_subscriptions",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("org_id", sa.Uuid(), _fk("orgs"), nullable=False),
        sa.Column("task_id", sa.Uuid(), _fk("tasks"), nullable=False),
        sa.Column("account_id", sa.Uuid(), _fk("accounts"), nullable=False),
        sa.Column("subscribed", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("task_id", "account_id"),
    )
    op.create_index(
        "ix_task_subscriptions_account",
        "task_subscriptions",
        ["account_id", "org_id", "subscribed"],
    )
    op.create_table(
        "notifications",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("org_id", sa.Uuid(), _fk("orgs"), nullable=False),
        sa.Column("recipient_id", sa.Uuid(), _fk("accounts"), nullable=False),
        sa.Column("task_id", sa.Uuid(), _fk("tasks"), nullable=False),
        sa.Column("actor_id", sa.Uuid(), _fk("accounts", "SET NULL"), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("comment_id", sa.Uuid(), _fk("comments", "SET NULL"), nullable=True),
        sa.Column("detail", sa.String(200), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("read_at", UTCDateTime(), nullable=True),
    )
    # The inbox list (newest first) and the navigation's unread count, which only
    # indexes unread rows so it stays small however long the history grows.
    op.create_index(
        "ix_notifications_inbox", "notifications", ["recipient_id", "org_id", "created_at"]
    )
    op.create_index(
        "ix_notifications_unread",
        "notifications",
        ["recipient_id", "org_id"],
        sqlite_where=sa.text("read_at IS NULL"),
        postgresql_where=sa.text("read_at IS NULL"),
    )
    op.create_index("ix_notifications_task_id", "notifications", ["task_id"])


def downgrade() -> None:
    op.drop_index("ix_notifications_task_id", table_name="notifications")
    op.drop_index("ix_notifications_unread", table_name="notifications")
    op.drop_index("ix_notifications_inbox", table_name="notifications")
    op.drop_table("notifications")
    op.drop_index("ix_task_subscriptions_account", table_name="task_subscriptions")
    op.drop_table("task_subscriptions")
