"""Mail: the instance's SMTP settings and the outbox (issue 30, docs/delivery.md#mail)

Revision ID: 0031_mail
Revises: 0030_cycle_upsert
Create Date: 2026-11-28

``mail_settings`` holds at most one row (no row: mail goes to the outbox), its password
sealed with the row's id. ``mail_outbox`` keeps what would have been sent, pruned on
each write (docs/delivery.md#the-outbox).
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0031_mail"
down_revision = "0030_cycle_upsert"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_settings",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("host", sa.String(253), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("security", sa.String(16), nullable=False),
        sa.Column("username", sa.String(320), nullable=True),
        sa.Column("password_sealed", sa.Text(), nullable=True),
        sa.Column("from_address", sa.String(320), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("from_address", sa.String(320), nullable=False),
        sa.Column("to", sa.Text(), nullable=False),
        sa.Column("subject", sa.String(998), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("html", sa.Text(), nullable=True),
        sa.Column("attachments", sa.Text(), nullable=True),
        sa.Column("size", sa.Integer(), nullable=False),
    )
    op.create_index("ix_mail_outbox_created", "mail_outbox", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_created", table_name="mail_outbox")
    op.drop_table("mail_outbox")
    op.drop_table("mail_settings")
