"""Alerts on analytics figures and their history (issue 30, docs/delivery.md#alerts)

Revision ID: 0034_alerts
Revises: 0033_dashboard_subscriptions
Create Date: 2026-11-28

``alerts``: one member's alert on a dashboard widget's figure, its state and next
check in UTC; ``alert_events``: the checks that changed its state or sent mail.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0034_alerts"
down_revision = "0033_dashboard_subscriptions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "alerts",
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
        sa.Column(
            "dashboard_id",
            sa.Uuid(),
            sa.ForeignKey("dashboards.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "widget_id",
            sa.Uuid(),
            sa.ForeignKey("dashboard_widgets.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("category", sa.String(200), nullable=True),
        sa.Column("condition", sa.String(16), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("interval_minutes", sa.Integer(), nullable=False),
        sa.Column("notify_resolved", sa.Boolean(), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("paused_reason", sa.String(200), nullable=True),
        sa.Column("last_value", sa.Float(), nullable=True),
        sa.Column("last_checked_at", UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("next_check_at", UTCDateTime(), nullable=True),
        sa.Column("muted", sa.Boolean(), nullable=False),
        sa.Column("muted_until", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_alerts_org_id", "alerts", ["org_id"])
    op.create_index("ix_alerts_account_id", "alerts", ["account_id"])
    op.create_index("ix_alerts_dashboard_id", "alerts", ["dashboard_id"])
    op.create_index("ix_alerts_due", "alerts", ["next_check_at"])
    op.create_table(
        "alert_events",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "alert_id", sa.Uuid(), sa.ForeignKey("alerts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("previous", sa.Float(), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("sent_to", sa.JSON(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
    )
    op.create_index("ix_alert_events_alert_at", "alert_events", ["alert_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_alert_events_alert_at", table_name="alert_events")
    op.drop_table("alert_events")
    op.drop_index("ix_alerts_due", table_name="alerts")
    op.drop_index("ix_alerts_dashboard_id", table_name="alerts")
    op.drop_index("ix_alerts_account_id", table_name="alerts")
    op.drop_index("ix_alerts_org_id", table_name="alerts")
    op.drop_table("alerts")
