"""A task's cycle time is recomputed once per transaction, not once per trigger (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0040_one_cycle_recompute
Revises: 0039_inline_rollup_slot
Create Date: 2026-11-28

PostgreSQL only. A state change inserts a history row and updates the task, and each
fires a deferred cycle-time trigger (0021, 0030, deferred by 0036): at COMMIT both
recomputed the same task's row from the same final state, reading its whole state
history twice. That was a quarter of the triggers' time in ``bench/trigger_cost.py``.

- The recompute is one function, ``task_cycle_recompute(task)``: it reads the task
  once, upserts 0030's row when the task counts and is completed, and otherwise
  deletes any row, without reading the history. It records in the transaction which
  task it recomputed and at which version of the task's row (``ctid``: every UPDATE
  makes a new one).
- The task's triggers (insert, update) skip the recompute when the last one of the
  transaction was of this task at its current row version: nothing it reads has
  changed since, as every change of a task's state history fires a history trigger,
  and those always recompute. A transaction that runs its deferred triggers early
  (``SET CONSTRAINTS ALL IMMEDIATE``) and writes again gets new events, and a new row
  version, so they recompute.
"""

import importlib.util
from pathlib import Path

from alembic import op


# revision identifiers, used by Alembic.
revision = "0040_one_cycle_recompute"
down_revision = "0039_inline_rollup_slot"
branch_labels = None
depends_on = None

RECOMPUTE = "task_cycle_recompute"
#: What the transaction last recomputed: ``<task id> <ctid of its row then>``.
SEEN = "workspace.cycle_seen"


def _revision(filename):
    path = Path(__file__).with_name(filename)
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.op = op
    return module


def _recompute_function(upsert, flow) -> str:
    """0030's upsert of the row, reached only for a completed task; any other task has
    no row (0030 said so with its DELETE's NOT EXISTS)."""
    insert = upsert(flow, "postgresql", "recomputed")
    assert insert.startswith("DELETE FROM task_cycle_times "), "0030's recompute changed"
    insert = insert[insert.index("; INSERT INTO ") + 2 :]
    return (
        f"CREATE FUNCTION {RECOMPUTE}(recomputed uuid) RETURNS void LANGUAGE plpgsql "
        f"{flow.INDEXED} AS $$ DECLARE version tid; completed boolean; BEGIN "
        f"SELECT t.ctid, {flow._kept('postgresql', 't')} INTO version, completed "
        "FROM tasks t WHERE t.id = recomputed; "
        f"IF completed THEN {insert}; "
        "ELSE DELETE FROM task_cycle_times WHERE task_id = recomputed; END IF; "
        f"PERFORM set_config('{SEEN}', recomputed::text || ' ' || coalesce(version::text, 'gone'), true); "
        "END $$"
    )


def _bodies(flow) -> dict[str, str]:
    """Each cycle trigger function's new body, by 0021's trigger name."""
    unchanged = (
        f"current_setting('{SEEN}', true) IS DISTINCT FROM "
        f"(SELECT NEW.id::text || ' ' || t.ctid::text FROM tasks t WHERE t.id = NEW.id)"
    )
    bodies = {}
    for name, _, _, _, when, _ in flow._cycle_bodies("postgresql"):
        if name in ("insert", "update"):
            body = f"IF ({when}) AND {unchanged} THEN PERFORM {RECOMPUTE}(NEW.id); END IF;"
        elif name == "history_update":
            body = (
                f"IF {when} THEN PERFORM {RECOMPUTE}(OLD.task_id); "
                f"PERFORM {RECOMPUTE}(NEW.task_id); END IF;"
            )
        else:
            row = "OLD" if name == "history_delete" else "NEW"
            body = f"IF {when} THEN PERFORM {RECOMPUTE}({row}.task_id); END IF;"
        bodies[f"task_cycle_on_{name}"] = body
    return bodies


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    cycles = _revision("0030_cycle_upsert.py")
    flow = cycles._flow_revision()
    op.execute(_recompute_function(cycles._upsert, flow))
    for trigger, body in _bodies(flow).items():
        # The triggers stay as 0036 made them (deferred); their functions change.
        op.execute(
            f"CREATE OR REPLACE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql "
            f"AS $$ BEGIN {body} RETURN NULL; END $$"
        )


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    _revision("0030_cycle_upsert.py").upgrade()  # 0030's bodies, in place
    op.execute(f"DROP FUNCTION {RECOMPUTE}(uuid)")
