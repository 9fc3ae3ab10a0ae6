"""merge the capability branches into one head

Each capability (SSO, LDAP, SCIM, analytics, dashboards, agents) grew its own
migration on top of the domains table; this joins them so that `flask db upgrade`
and `flask db migrate` see one head again.

Revision ID: 0005_merge
Revises: 0003_agents_ai, 0003_analytics, 0003_dashboards, 0003_ldap, 0003_sso, 0004_scim
Create Date: 2026-11-22 15:40:00

"""

revision = "0005_merge"
down_revision = (
    "0003_agents_ai",
    "0003_analytics",
    "0003_dashboards",
    "0003_ldap",
    "0003_sso",
    "0004_scim",
)
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
