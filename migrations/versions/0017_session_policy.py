"""Per-org session lifetimes and sign-out that reaches the IdP (docs/security.md#sessions)

Revision ID: 0017_session_policy
Revises: 0016_enforced_sso
Create Date: 2026-11-27

An org sets the longest a sign-in lasts and how long it may sit idle; each session
keeps the strictest idle limit of its account's orgs. An SSO session keeps the
IdP's ``sub``/``sid`` (for back-channel logout) and its sealed id_token (the hint of
an RP-initiated logout); a back-channel logout token's ``jti`` is kept so a replay
is refused; a connection says whether signing out reaches the IdP.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0017_session_policy"
down_revision = "0016_enforced_sso"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("orgs") as batch:
        batch.add_column(sa.Column("session_max_hours", sa.Integer()))
        batch.add_column(sa.Column("session_idle_minutes", sa.Integer()))
    with op.batch_alter_table("auth_sessions") as batch:
        batch.add_column(sa.Column("idle_timeout_minutes", sa.Integer()))
        batch.add_column(sa.Column("sso_org_id", sa.Uuid()))
        batch.add_column(sa.Column("idp_sub", sa.String(255)))
        batch.add_column(sa.Column("idp_sid", sa.String(255)))
        batch.add_column(sa.Column("idp_id_token_sealed", sa.Text()))
        batch.create_foreign_key(
            "fk_auth_sessions_sso_org_id_orgs", "orgs", ["sso_org_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_auth_sessions_sso_org_id", ["sso_org_id"])
    with op.batch_alter_table("sso_connections") as batch:
        batch.add_column(
            sa.Column("idp_logout", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    op.create_table(
        "sso_logout_tokens",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("jti", sa.String(255), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("org_id", "jti"),
    )
    op.create_index("ix_sso_logout_tokens_expires_at", "sso_logout_tokens", ["expires_at"])


def downgrade():
    op.drop_index("ix_sso_logout_tokens_expires_at", "sso_logout_tokens")
    op.drop_table("sso_logout_tokens")
    with op.batch_alter_table("sso_connections") as batch:
        batch.drop_column("idp_logout")
    with op.batch_alter_table("auth_sessions") as batch:
        batch.drop_index("ix_auth_sessions_sso_org_id")
        batch.drop_constraint("fk_auth_sessions_sso_org_id_orgs", type_="foreignkey")
        for column in (
            "idp_id_token_sealed",
            "idp_sid",
            "idp_sub",
            "sso_org_id",
            "idle_timeout_minutes",
        ):
            batch.drop_column(column)
    with op.batch_alter_table("orgs") as batch:
        batch.drop_column("session_idle_minutes")
        batch.drop_column("session_max_hours")
