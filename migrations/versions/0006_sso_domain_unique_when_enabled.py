"""sso email domain unique among enabled connections only

A disabled draft of an org that never verified the domain used to hold the domain
for good, locking out the org that does verify it. Uniqueness now binds where the
domain routes sign-ins: among enabled connections (which need the domain verified).

Revision ID: 0006_sso_enabled_domain
Revises: 0005_merge
Create Date: 2026-11-23 16:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0006_sso_enabled_domain"
down_revision = "0005_merge"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("sso_connections", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_sso_connections_email_domain"), type_="unique")
        batch_op.create_index(
            batch_op.f("ix_sso_connections_email_domain"), ["email_domain"], unique=False
        )
        batch_op.create_index(
            "uq_sso_connections_enabled_email_domain",
            ["email_domain"],
            unique=True,
            sqlite_where=sa.text("enabled"),
            postgresql_where=sa.text("enabled"),
        )


def downgrade():
    with op.batch_alter_table("sso_connections", schema=None) as batch_op:
        batch_op.drop_index("uq_sso_connections_enabled_email_domain")
        batch_op.drop_index(batch_op.f("ix_sso_connections_email_domain"))
        batch_op.create_unique_constraint(
            batch_op.f("uq_sso_connections_email_domain"), ["email_domain"]
        )
