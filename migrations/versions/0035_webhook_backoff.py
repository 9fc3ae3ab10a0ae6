"""A failing webhook endpoint backs off as a whole (issue 30, docs/delivery.md#webhooks)

Revision ID: 0035_webhook_backoff
Revises: 0034_alerts
Create Date: 2026-11-28

``webhook_endpoints.retry_at``: while the endpoint is failing, when its next attempt
may be made; one attempt (the probe) claims it, the endpoint's other deliveries wait
for it instead of each spending a worker's thread on a receiver that does not answer.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0035_webhook_backoff"
down_revision = "0034_alerts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.add_column(sa.Column("retry_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.drop_column("retry_at")
