"""initial schema

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-23

The whole schema in one step: the squashed history of core, identity (domains, SSO,
LDAP), SCIM, analytics (dashboards, the covering index of the tasks that count) and
agents. Partial indexes carry their predicate per dialect, written the way
SQLAlchemy renders the models' queries on each.
"""

from alembic import op
import sqlalchemy as sa

import workspace.types


# revision identifiers, used by Alembic.
revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    # --- core: accounts, orgs, members, projects, workflow, tasks, events
    op.create_table(
        "accounts",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email_verified", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("email", name=op.f("uq_accounts_email")),
    )
    op.create_table(
        "orgs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("slug", sa.String(length=63), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orgs")),
        sa.UniqueConstraint("slug", name=op.f("uq_orgs_slug")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("last_used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("revoked_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_api_tokens_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_api_tokens_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_api_tokens_org_id"), ["org_id"], unique=False)

    op.create_table(
        "auth_sessions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("user_agent", sa.String(length=300), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("expires_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_auth_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_auth_sessions_token_hash")),
    )
    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_sessions_account_id"), ["account_id"], unique=False
        )

    op.create_table(
        "events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("actor_id", sa.Uuid(), nullable=True),
        sa.Column("subject", sa.String(length=320), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["actor_id"],
            ["accounts.id"],
            name=op.f("fk_events_actor_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_events_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index("ix_events_org_created", ["org_id", "created_at"], unique=False)

    op.create_table(
        "org_members",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("deactivated_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_org_members_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_org_members_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_org_members")),
        sa.UniqueConstraint("org_id", "account_id", name=op.f("uq_org_members_org_id_account_id")),
    )
    with op.batch_alter_table("org_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_org_members_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_org_members_org_id"), ["org_id"], unique=False)

    op.create_table(
        "projects",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("identifier", sa.String(length=12), nullable=False),
        sa.Column("description", sa.String(length=2000), nullable=False),
        sa.Column("next_sequence", sa.Integer(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("archived_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_projects_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
        sa.UniqueConstraint("org_id", "identifier", name=op.f("uq_projects_org_id_identifier")),
    )
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_projects_org_id"), ["org_id"], unique=False)

    op.create_table(
        "cycles",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=True),
        sa.Column("end_date", sa.Date(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_cycles_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cycles")),
        sa.UniqueConstraint("project_id", "name", name=op.f("uq_cycles_project_id_name")),
    )
    with op.batch_alter_table("cycles", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cycles_project_id"), ["project_id"], unique=False)

    op.create_table(
        "modules",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.String(length=2000), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_modules_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_modules")),
        sa.UniqueConstraint("project_id", "name", name=op.f("uq_modules_project_id_name")),
    )
    with op.batch_alter_table("modules", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_modules_project_id"), ["project_id"], unique=False)

    op.create_table(
        "project_members",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_project_members_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_project_members_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project_members")),
        sa.UniqueConstraint(
            "project_id", "account_id", name=op.f("uq_project_members_project_id_account_id")
        ),
    )
    with op.batch_alter_table("project_members", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_project_members_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_project_members_project_id"), ["project_id"], unique=False
        )

    op.create_table(
        "states",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("color", sa.String(length=16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_states_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_states")),
        sa.UniqueConstraint("project_id", "name", name=op.f("uq_states_project_id_name")),
    )
    with op.batch_alter_table("states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_states_project_id"), ["project_id"], unique=False)

    op.create_table(
        "tasks",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("state_id", sa.Uuid(), nullable=False),
        sa.Column("state_category", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("assignee_id", sa.Uuid(), nullable=True),
        sa.Column("cycle_id", sa.Uuid(), nullable=True),
        sa.Column("module_id", sa.Uuid(), nullable=True),
        sa.Column("created_by_id", sa.Uuid(), nullable=True),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("is_draft", sa.Boolean(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("completed_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("archived_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("deleted_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["assignee_id"],
            ["accounts.id"],
            name=op.f("fk_tasks_assignee_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["accounts.id"],
            name=op.f("fk_tasks_created_by_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["cycle_id"], ["cycles.id"], name=op.f("fk_tasks_cycle_id_cycles"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["module_id"],
            ["modules.id"],
            name=op.f("fk_tasks_module_id_modules"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_tasks_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_tasks_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["state_id"], ["states.id"], name=op.f("fk_tasks_state_id_states")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tasks")),
        sa.UniqueConstraint("project_id", "sequence", name=op.f("uq_tasks_project_id_sequence")),
    )
    with op.batch_alter_table("tasks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tasks_assignee_id"), ["assignee_id"], unique=False)
        batch_op.create_index(
            "ix_tasks_counted",
            [
                "org_id",
                "state_category",
                "priority",
                "kind",
                "assignee_id",
                "due_date",
                "project_id",
                # The predicate's own columns close the list: constant inside the index,
                # nearly free, but SQLite only calls an index covering when every
                # referenced column is in it.
                "state_id",
                "completed_at",
                "is_draft",
                "archived_at",
                "deleted_at",
            ],
            unique=False,
            sqlite_where=sa.text(
                "state_category != 'triage' AND is_draft = 0 AND archived_at IS NULL AND deleted_at IS NULL"
            ),
            postgresql_where=sa.text(
                "state_category != 'triage' AND is_draft = false AND archived_at IS NULL AND deleted_at IS NULL"
            ),
        )
        batch_op.create_index(batch_op.f("ix_tasks_cycle_id"), ["cycle_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_tasks_module_id"), ["module_id"], unique=False)
        batch_op.create_index("ix_tasks_project_state", ["project_id", "state_id"], unique=False)

    op.create_table(
        "comments",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("author_id", sa.Uuid(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["accounts.id"],
            name=op.f("fk_comments_author_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], name=op.f("fk_comments_task_id_tasks"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comments")),
    )
    with op.batch_alter_table("comments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_comments_task_id"), ["task_id"], unique=False)

    op.create_table(
        "task_activity",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("actor_id", sa.Uuid(), nullable=True),
        sa.Column("field", sa.String(length=32), nullable=False),
        sa.Column("old_value", sa.String(length=500), nullable=True),
        sa.Column("new_value", sa.String(length=500), nullable=True),
        sa.Column("old_category", sa.String(length=16), nullable=True),
        sa.Column("new_category", sa.String(length=16), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["actor_id"],
            ["accounts.id"],
            name=op.f("fk_task_activity_actor_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_task_activity_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["tasks.id"],
            name=op.f("fk_task_activity_task_id_tasks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_task_activity")),
    )
    with op.batch_alter_table("task_activity", schema=None) as batch_op:
        batch_op.create_index(
            "ix_task_activity_state_changes",
            ["org_id", "new_category", "created_at", "task_id"],
            unique=False,
            sqlite_where=sa.text("field = 'state'"),
            postgresql_where=sa.text("field = 'state'"),
        )
        batch_op.create_index(
            "ix_task_activity_task_created", ["task_id", "created_at"], unique=False
        )

    # --- identity: verified domains
    op.create_table(
        "domains",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("domain", sa.String(length=253), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("verification_token", sa.String(length=64), nullable=False),
        sa.Column("verified_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_domains_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_domains")),
        sa.UniqueConstraint("org_id", "domain", name=op.f("uq_domains_org_id_domain")),
        sa.UniqueConstraint("verification_token", name=op.f("uq_domains_verification_token")),
    )
    with op.batch_alter_table("domains", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_domains_org_id"), ["org_id"], unique=False)
        batch_op.create_index(
            "uq_domains_verified_domain",
            ["domain"],
            unique=True,
            sqlite_where=sa.text("state = 'verified'"),
            postgresql_where=sa.text("state = 'verified'"),
        )

    # --- identity: SSO connections, group mappings, sign-in attempts
    op.create_table(
        "sso_connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("email_domain", sa.String(length=253), nullable=False),
        sa.Column("issuer_url", sa.String(length=500), nullable=False),
        sa.Column("client_id", sa.String(length=500), nullable=False),
        sa.Column("client_secret_sealed", sa.String(length=2000), nullable=False),
        sa.Column("redirect_uri", sa.String(length=500), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("sync_groups_on_login", sa.Boolean(), nullable=False),
        sa.Column("groups_claim", sa.String(length=100), nullable=False),
        sa.Column("remove_stale_synced_memberships", sa.Boolean(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_sso_connections_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_connections")),
        sa.UniqueConstraint("org_id", name=op.f("uq_sso_connections_org_id")),
    )
    with op.batch_alter_table("sso_connections", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sso_connections_email_domain"), ["email_domain"], unique=False
        )
        # One enabled connection per email domain; disabled ones may share it.
        batch_op.create_index(
            "uq_sso_connections_enabled_email_domain",
            ["email_domain"],
            unique=True,
            sqlite_where=sa.text("enabled"),
            postgresql_where=sa.text("enabled"),
        )
    op.create_table(
        "sso_group_mappings",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("idp_group", sa.String(length=256), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_sso_group_mappings_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_sso_group_mappings_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_group_mappings")),
        sa.UniqueConstraint(
            "org_id",
            "idp_group",
            "project_id",
            name=op.f("uq_sso_group_mappings_org_id_idp_group_project_id"),
        ),
    )
    with op.batch_alter_table("sso_group_mappings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sso_group_mappings_org_id"), ["org_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_sso_group_mappings_project_id"), ["project_id"], unique=False
        )
    op.create_table(
        "sso_attempts",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("nonce", sa.String(length=100), nullable=False),
        sa.Column("code_verifier_sealed", sa.String(length=500), nullable=False),
        sa.Column("browser_hash", sa.String(length=64), nullable=False),
        sa.Column("next_path", sa.String(length=500), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_sso_attempts_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_attempts")),
    )
    with op.batch_alter_table("sso_attempts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sso_attempts_org_id"), ["org_id"], unique=False)

    # --- identity: LDAP connections
    op.create_table(
        "ldap_connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("server_uri", sa.String(length=500), nullable=False),
        sa.Column("bind_dn", sa.String(length=500), nullable=False),
        sa.Column("bind_password_sealed", sa.Text(), nullable=True),
        sa.Column("search_base", sa.String(length=500), nullable=False),
        sa.Column("search_filter", sa.String(length=1000), nullable=False),
        sa.Column("email_attribute", sa.String(length=100), nullable=False),
        sa.Column("given_name_attribute", sa.String(length=100), nullable=False),
        sa.Column("family_name_attribute", sa.String(length=100), nullable=False),
        sa.Column("use_tls", sa.Boolean(), nullable=False),
        sa.Column("ca_cert", sa.Text(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["orgs.id"],
            name=op.f("fk_ldap_connections_org_id_orgs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ldap_connections")),
        sa.UniqueConstraint("org_id", name=op.f("uq_ldap_connections_org_id")),
    )

    # --- scim: tokens and identities
    op.create_table(
        "scim_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("last_used_at", workspace.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_scim_tokens_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["accounts.id"],
            name=op.f("fk_scim_tokens_created_by_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_tokens")),
        sa.UniqueConstraint("org_id", name=op.f("uq_scim_tokens_org_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_scim_tokens_token_hash")),
    )
    op.create_table(
        "scim_identities",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("member_id", sa.Uuid(), nullable=False),
        sa.Column("user_name", sa.String(length=320), nullable=False),
        sa.Column("user_name_key", sa.String(length=320), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("email_keys", sa.String(length=4000), nullable=False),
        sa.Column("deleted_at", workspace.types.UTCDateTime(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_scim_identities_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["member_id"],
            ["org_members.id"],
            name=op.f("fk_scim_identities_member_id_org_members"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_identities")),
        sa.UniqueConstraint("member_id", name=op.f("uq_scim_identities_member_id")),
    )
    with op.batch_alter_table("scim_identities", schema=None) as batch_op:
        batch_op.create_index(
            "ix_scim_identities_org_external_id", ["org_id", "external_id"], unique=False
        )
        batch_op.create_index(
            "uq_scim_identities_org_user_name",
            ["org_id", "user_name_key"],
            unique=True,
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )

    # --- analytics: dashboards and widgets
    op.create_table(
        "dashboards",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("visibility", sa.String(length=16), nullable=False),
        sa.Column("pql_filter", sa.Text(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_dashboards_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["accounts.id"],
            name=op.f("fk_dashboards_owner_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dashboards")),
    )
    with op.batch_alter_table("dashboards", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_dashboards_org_id"), ["org_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_dashboards_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "dashboard_widgets",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("dashboard_id", sa.Uuid(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("chart_type", sa.String(length=16), nullable=False),
        sa.Column("metric", sa.String(length=16), nullable=False),
        sa.Column("dimension", sa.String(length=16), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=True),
        sa.Column("filter", sa.Text(), nullable=True),
        sa.Column("span", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["dashboard_id"],
            ["dashboards.id"],
            name=op.f("fk_dashboard_widgets_dashboard_id_dashboards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_dashboard_widgets_project_id_projects"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dashboard_widgets")),
    )
    with op.batch_alter_table("dashboard_widgets", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_dashboard_widgets_dashboard_id"), ["dashboard_id"], unique=False
        )

    # --- agents: AI settings and runs
    op.create_table(
        "ai_settings",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("base_url", sa.String(length=500), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("api_key_sealed", sa.Text(), nullable=True),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_ai_settings_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_settings")),
        sa.UniqueConstraint("org_id", name=op.f("uq_ai_settings_org_id")),
    )
    op.create_table(
        "ai_runs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=True),
        sa.Column("actor_kind", sa.String(length=16), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("raw_answer", sa.Text(), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("offline", sa.Boolean(), nullable=False),
        sa.Column("fallback", sa.Boolean(), nullable=False),
        sa.Column("metric", sa.String(length=16), nullable=False),
        sa.Column("dimension", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("credits_charged", sa.Integer(), nullable=False),
        sa.Column("created_at", workspace.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_ai_runs_account_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["orgs.id"], name=op.f("fk_ai_runs_org_id_orgs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_runs")),
    )
    op.create_index("ix_ai_runs_org_created", "ai_runs", ["org_id", "created_at"], unique=False)


def downgrade():
    op.drop_table("ai_runs")
    op.drop_table("ai_settings")
    op.drop_table("dashboard_widgets")
    op.drop_table("dashboards")
    op.drop_table("scim_identities")
    op.drop_table("scim_tokens")
    op.drop_table("ldap_connections")
    op.drop_table("sso_attempts")
    op.drop_table("sso_group_mappings")
    op.drop_table("sso_connections")
    op.drop_table("domains")
    op.drop_table("task_activity")
    op.drop_table("comments")
    op.drop_table("tasks")
    op.drop_table("states")
    op.drop_table("project_members")
    op.drop_table("modules")
    op.drop_table("cycles")
    op.drop_table("projects")
    op.drop_table("org_members")
    op.drop_table("events")
    op.drop_table("auth_sessions")
    op.drop_table("api_tokens")
    op.drop_table("orgs")
    op.drop_table("accounts")
