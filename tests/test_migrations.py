"""Migrations build the schema on both databases and match the models exactly."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from workspace import ROOT
from workspace.core.search_index import TABLES as SEARCH
from workspace.extensions import built_here, db


def test_upgrade_reaches_every_head(app):
    with app.app_context():
        script = ScriptDirectory(str(ROOT / "migrations"))
        with db.engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
        assert current == set(script.get_heads())
        tables = set(inspect(db.engine).get_table_names())
        assert {"orgs", "accounts", "tasks", "task_activity", "events"} <= tables


# Partial indexes: autogenerate does not compare their predicates, so check them here.
PARTIAL_INDEXES = {
    "ix_tasks_counted": "deleted_at IS NULL",
    "ix_tasks_completed": "state_category = 'completed'",
    "ix_task_activity_state_changes": "field = 'state'",
    "uq_domains_verified_domain": "state = 'verified'",
    "uq_sso_connections_enabled_email_domain": "enabled",
    "uq_scim_identities_org_user_name": "deleted_at IS NULL",
}


def test_one_linear_history():
    """One head, no merge points: the history is a single chain."""
    script = ScriptDirectory(str(ROOT / "migrations"))
    assert len(script.get_heads()) == 1, script.get_heads()
    merges = [r.revision for r in script.walk_revisions() if r.is_merge_point]
    assert merges == []


def test_partial_indexes_keep_their_predicates(app):
    with app.app_context(), db.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            rows = conn.execute(text("SELECT indexname, indexdef FROM pg_indexes"))
        else:
            rows = conn.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'index'"))
        definitions = {name: sql or "" for name, sql in rows}
    for name, predicate in PARTIAL_INDEXES.items():
        # PostgreSQL spells it back with casts and parentheses: ((field)::text = 'state'::text).
        where = definitions[name].partition(" WHERE ")[2].replace("::text", "")
        assert predicate in where.replace("(", "").replace(")", ""), (name, definitions[name])


def test_models_match_migrations(app):
    """No pending autogenerate diff: what the models say is what the migrations built."""
    with app.app_context(), db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "compare_type": True,
                "render_as_batch": True,
                # The search index has no model: an FTS5 table cannot be one.
                "include_name": lambda name, kind, _: kind != "table" or name not in SEARCH,
                "include_object": built_here,  # as `flask db migrate` has it
            },
        )
        diff = compare_metadata(context, db.metadata)
    assert diff == []


def test_downgrade_to_base_and_back(app):
    with app.app_context():
        downgrade(revision="base")
        assert "tasks" not in inspect(db.engine).get_table_names()
        upgrade()
        assert "tasks" in inspect(db.engine).get_table_names()
