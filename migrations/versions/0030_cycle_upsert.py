"""Cycle-time rows are upserted, not deleted and inserted again (docs/analytics.md#maintained-rollups)

Revision ID: 0030_cycle_upsert
Revises: 0029_saved_views
Create Date: 2026-11-27

Migration 0021's triggers recompute a task's ``task_cycle_times`` row as a DELETE and
an INSERT each time the task or its state history changes. A completion fires two of
them (the task's UPDATE and its history INSERT), so the row went in, out and in
again, each time writing both of its indexes and, since 0028, the week histogram's
row twice more. The recompute is now an upsert that writes only when a value
differs, and a DELETE only when the task no longer has a cycle time: the second
recompute of a completion writes nothing. The row's SELECT reads the task's state
history in one aggregate instead of 0021's repeated subqueries. The trigger names, events and conditions
are 0021's; only their bodies change.
"""

import importlib.util
from pathlib import Path

from alembic import op

# revision identifiers, used by Alembic.
revision = "0030_cycle_upsert"
down_revision = "0029_saved_views"
branch_labels = None
depends_on = None

COLUMNS = ("org_id", "project_id", "completed_at", "started_at", "cycle_us")


def _flow_revision():
    """Migration 0021's module: its trigger list, cycle-row SELECT and counted rule."""
    path = Path(__file__).with_name("0021_flow_days.py")
    spec = importlib.util.spec_from_file_location("revision_0021_flow_days", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cycle_row(flow, dialect: str, task_id: str) -> str:
    """0021's SELECT of task ``task_id``'s cycle-time row, its state history read in
    one pass: 0021 wrote the start's two subqueries into a CASE and the CASE twice,
    and SQLite evaluates each copy (up to ten index lookups a recompute); here one
    aggregate over the history gives both moments."""
    micros = flow.MICROS[dialect]
    started = (
        "CASE WHEN h.out_of IS NOT NULL AND (h.entered IS NULL OR h.out_of < h.entered) "
        "THEN t.created_at ELSE h.entered END"
    )
    history = (
        "SELECT min(CASE WHEN a.new_category = 'started' AND (a.old_category IS NULL "
        "OR a.old_category != 'started') THEN a.created_at END) AS entered, "
        "min(CASE WHEN a.old_category = 'started' THEN a.created_at END) AS out_of "
        f"FROM task_activity a WHERE a.task_id = {task_id} AND a.field = 'state' "
        f"AND a.created_at <= (SELECT c.completed_at FROM tasks c WHERE c.id = {task_id})"
    )
    return (
        "SELECT s.org_id, s.task_id, s.project_id, s.completed_at, s.started_at, "
        f"{micros.format(x='s.completed_at')} - {micros.format(x='s.started_at')} "
        "FROM (SELECT t.org_id AS org_id, t.id AS task_id, t.project_id AS project_id, "
        f"t.completed_at AS completed_at, {started} AS started_at FROM tasks t, ({history}) h "
        f"WHERE t.id = {task_id} AND {flow._kept(dialect, 't')}) s"
    )


def _upsert(flow, dialect: str, task_id: str) -> str:
    table = flow.CYCLES
    differs = " IS DISTINCT FROM " if dialect == "postgresql" else " IS NOT "
    changed = " OR ".join(f"{table}.{c}{differs}excluded.{c}" for c in COLUMNS)
    # ``WHERE true``: SQLite reads ``ON CONFLICT`` after a bare FROM as a join's ON.
    return (
        f"DELETE FROM {table} WHERE task_id = {task_id} AND NOT EXISTS "
        f"(SELECT 1 FROM tasks t WHERE t.id = {task_id} AND {flow._kept(dialect, 't')}); "
        f"INSERT INTO {table} (org_id, task_id, project_id, completed_at, started_at, cycle_us) "
        f"SELECT * FROM ({_cycle_row(flow, dialect, task_id)}) r WHERE true "
        "ON CONFLICT (task_id) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS)
        + f" WHERE {changed}"
    )


def _replace_bodies(recompute) -> None:
    """Every cycle trigger of 0021 again, with ``recompute(dialect, task_id)`` as its
    recompute."""
    flow = _flow_revision()
    dialect = op.get_bind().dialect.name
    flow._recompute = lambda d, task_id: recompute(flow, d, task_id)
    for name, timing, event, table, when, body in flow._cycle_bodies(dialect):
        trigger = f"task_cycle_on_{name}"
        if dialect == "postgresql":
            # The trigger stays; its function is replaced in place (0021 spells the
            # condition in the body too).
            op.execute(
                f"CREATE OR REPLACE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql "
                f"{flow.INDEXED} AS $$ BEGIN IF {when} THEN {body}; END IF; "
                "RETURN NULL; END $$"
            )
        else:
            op.execute(f'DROP TRIGGER "{trigger}"')
            op.execute(
                f"CREATE TRIGGER {trigger} {timing} {event} ON {table} WHEN {when} "
                f"BEGIN {body}; END"
            )


def upgrade() -> None:
    _replace_bodies(_upsert)


def downgrade() -> None:
    original = _flow_revision()._recompute
    _replace_bodies(lambda flow, dialect, task_id: original(dialect, task_id))
