"""Dashboard subscriptions and their send history (issue 30, docs/delivery.md#subscriptions)

Revision ID: 0033_dashboard_subscriptions
Revises: 0032_webhooks
Create Date: 2026-11-28

``dashboard_subscriptions``: one member's scheduled mail of one dashboard (one per
member and dashboard), with its next send in UTC; ``dashboard_subscription_sends``:
each send and how it went.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0033_dashboard_subscriptions"
down_revision = "0032_webhooks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dashboard_subscriptions",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "dashboard_id",
            sa.Uuid(),
            sa.ForeignKey("dashboards.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "account_id",
            sa.Uuid(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "created_by",
            sa.Uuid(),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("frequency", sa.String(16), nullable=False),
        sa.Column("hour", sa.Integer(), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=True),
        sa.Column("day_of_month", sa.Integer(), nullable=True),
        sa.Column("pql_filter", sa.Text(), nullable=True),
        sa.Column("next_send_at", UTCDateTime(), nullable=True),
        sa.Column("paused_reason", sa.String(200), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("dashboard_id", "account_id", name="uq_dashboard_subscriptions_member"),
    )
    op.create_index("ix_dashboard_subscriptions_org_id", "dashboard_subscriptions", ["org_id"])
    op.create_index(
        "ix_dashboard_subscriptions_account_id", "dashboard_subscriptions", ["account_id"]
    )
    op.create_index("ix_dashboard_subscriptions_due", "dashboard_subscriptions", ["next_send_at"])
    op.create_table(
        "dashboard_subscription_sends",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "subscription_id",
            sa.Uuid(),
            sa.ForeignKey("dashboard_subscriptions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("due_at", UTCDateTime(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column(
            "job_id", sa.Uuid(), sa.ForeignKey("jobs.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index(
        "ix_dashboard_subscription_sends_subscription_id",
        "dashboard_subscription_sends",
        ["subscription_id"],
    )


def downgrade() -> None:
    op.drop_index(
        "ix_dashboard_subscription_sends_subscription_id", table_name="dashboard_subscription_sends"
    )
    op.drop_table("dashboard_subscription_sends")
    op.drop_index("ix_dashboard_subscriptions_due", table_name="dashboard_subscriptions")
    op.drop_index("ix_dashboard_subscriptions_account_id", table_name="dashboard_subscriptions")
    op.drop_index("ix_dashboard_subscriptions_org_id", table_name="dashboard_subscriptions")
    op.drop_table("dashboard_subscriptions")
