"""A task's cycle-time recompute finds its first start and first exit by two index probes, not a pass over its whole history (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0039_cycle_first_moves
Revises: 0038_slot_task_rollups
Create Date: 2026-11-28

PostgreSQL only; SQLite's triggers are unchanged. ``bench/hot_writes.py`` timed each
trigger function per write after 0038: the cycle-time recompute, run at COMMIT by both
a completion's task update and its history insert, came second only to the flow
trigger (0.3-0.4 ms a state change together), and it read the task's whole state
history each time (0030's one aggregate: the earliest move into started and the
earliest move out of it). An agent cycling a task through its states makes that
history longer with every lap. The earliest of each is the first row of the task's
history, in time order, that is such a move: ``ORDER BY created_at LIMIT 1`` over the
``(task_id, created_at)`` index, which stops at the first match (for nearly every task
one of its first rows). Same result, row for row; only the history's read changes.
"""

import importlib.util
from pathlib import Path

from alembic import op


# revision identifiers, used by Alembic.
revision = "0039_cycle_first_moves"
down_revision = "0038_slot_task_rollups"
branch_labels = None
depends_on = None


def _upsert_revision():
    path = Path(__file__).with_name("0030_cycle_upsert.py")
    spec = importlib.util.spec_from_file_location("revision_0030_cycle_upsert", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cycle_row(flow, dialect, task_id):
    """0030's SELECT of task ``task_id``'s cycle-time row, each moment its first
    matching history row by time rather than the minimum over all of them."""
    micros = flow.MICROS[dialect]

    def first(move):
        return (
            f"(SELECT a.created_at FROM task_activity a WHERE a.task_id = {task_id} "
            f"AND a.field = 'state' AND {move} AND a.created_at <= t.completed_at "
            "ORDER BY a.created_at LIMIT 1)"
        )

    entered = first(
        "a.new_category = 'started' AND (a.old_category IS NULL OR a.old_category != 'started')"
    )
    out_of = first("a.old_category = 'started'")
    started = (
        "CASE WHEN h.out_of IS NOT NULL AND (h.entered IS NULL OR h.out_of < h.entered) "
        "THEN t.created_at ELSE h.entered END"
    )
    return (
        "SELECT s.org_id, s.task_id, s.project_id, s.completed_at, s.started_at, "
        f"{micros.format(x='s.completed_at')} - {micros.format(x='s.started_at')} "
        "FROM (SELECT t.org_id AS org_id, t.id AS task_id, t.project_id AS project_id, "
        f"t.completed_at AS completed_at, {started} AS started_at FROM tasks t "
        f"CROSS JOIN LATERAL (SELECT {entered} AS entered, {out_of} AS out_of) h "
        f"WHERE t.id = {task_id} AND {flow._kept(dialect, 't')}) s"
    )


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    upsert = _upsert_revision()
    upsert._cycle_row = _cycle_row
    upsert._replace_bodies(upsert._upsert)


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    upsert = _upsert_revision()
    upsert._replace_bodies(upsert._upsert)
