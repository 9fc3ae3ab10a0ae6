"""Migrations build the schema on both databases and match the models exactly."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from workspace import ROOT
from workspace.extensions import db


def test_upgrade_reaches_every_head(app):
    with app.app_context():
        script = ScriptDirectory(str(ROOT / "migrations"))
        with db.engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
        assert current == set(script.get_heads())
        tables = set(inspect(db.engine).get_table_names())
        assert {"orgs", "accounts", "tasks", "task_activity", "events"} <= tables


def test_models_match_migrations(app):
    """No pending autogenerate diff: what the models say is what the migrations built."""
    with app.app_context(), db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "render_as_batch": True}
        )
        diff = compare_metadata(context, db.metadata)
    assert diff == []


def test_downgrade_to_base_and_back(app):
    with app.app_context():
        downgrade(revision="base")
        assert "tasks" not in inspect(db.engine).get_table_names()
        upgrade()
        assert "tasks" in inspect(db.engine).get_table_names()
