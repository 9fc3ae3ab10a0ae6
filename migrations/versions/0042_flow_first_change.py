"""A new task and a task's first state change no longer walk its history for the flow rollups (docs/scaling.md#hot-writes)

Revision ID: 0042_flow_first_change
Revises: 0041_unfolded_index
Create Date: 2026-11-29

PostgreSQL only; SQLite's row triggers are unchanged. At a million tasks the flow
rollups were the largest trigger cost of a create and of a task's first state change
(0.65 and 0.62 ms of trigger functions a write, bench/analytics.py's writes; the rest
of each write's rollups took 0.5), because both took 0021's general path, which walks
the task's history to find the category it was created in:

- **A new task.** Its insert trigger read the task's history three times in each of
  the two tables' statements, to count the task in the category its first state change
  left. A task being inserted has no history (the history's foreign key refuses a row
  before its task) unless one statement writes both (a data-modifying CTE), and then
  the history's own trigger, which fires for that statement too, moves the creation
  and counts the moves: the walk counted them a second time (a test caught a task
  counted twice). The trigger now adds the task to its own category at its creation
  hour and reads nothing: exact in both cases, and no probe of the history.
- **A task's first state change.** 0037's short path (apply the row's own move) held
  only for a change that follows an earlier one of its task. A first change moves the
  creation from the task's current category (no history: the task was created in the
  one it is in) to the change's old category, which is the same category whenever the
  change leaves the state the task is in, as every change through the app does; that
  shift is zero, so such a row (its task's only state row, its old category the task's)
  now takes the short path too. A backdated or imported first change from another
  category, or a batch, still takes the general path.
"""

import importlib.util
from pathlib import Path

from alembic import op

# revision identifiers, used by Alembic.
revision = "0042_flow_first_change"
down_revision = "0041_unfolded_index"
branch_labels = None
depends_on = None

TASK_INSERT = "task_flow_on_insert"
HISTORY_INSERT = "task_flow_on_history_insert"


def _append_path_revision():
    """0037, whose trigger code (0021's, adding into the transaction's slot) this
    revision builds on."""
    path = Path(__file__).with_name("0037_flow_append_path.py")
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.op = op
    return module


def _new_task(flow) -> str:
    """The task insert trigger: the task in its own category at its creation hour; the
    history's triggers move the creation and count the moves of any history row."""
    created = (
        "SELECT NEW.org_id AS org_id, NEW.project_id AS project_id, "
        f"{flow._hour('postgresql', 'NEW.created_at')} AS hour, "
        "NEW.state_category AS category, 1 AS delta"
    )
    return (
        f"CREATE OR REPLACE FUNCTION {TASK_INSERT}() RETURNS trigger LANGUAGE plpgsql "
        f"{flow.INDEXED} AS $$ BEGIN IF {flow._counted('postgresql', 'NEW')} THEN "
        f"{flow._apply(created)}; END IF; RETURN NULL; END $$"
    )


def _first_change(flow) -> str:
    """The history insert trigger: each new state row's own move when every one either
    follows an earlier change of its task (0037) or is its task's only state row and
    leaves the category the task is in (the creation's shift is zero), else 0021's
    general path."""
    follows = (
        "EXISTS (SELECT 1 FROM task_activity a WHERE a.task_id = n.task_id "
        "AND a.field = 'state' AND a.created_at <= n.created_at "
        "AND (a.created_at, a.id) < (n.created_at, n.id))"
    )
    leaves_its_category = (
        "(NOT EXISTS (SELECT 1 FROM task_activity a WHERE a.task_id = n.task_id "
        "AND a.field = 'state' AND a.id != n.id) "
        "AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = n.task_id "
        "AND coalesce(n.old_category, t.state_category) = t.state_category))"
    )
    short = (
        "NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.field = 'state' "
        f"AND NOT {follows} AND NOT {leaves_its_category})"
    )
    moves = (
        "SELECT t.org_id AS org_id, t.project_id AS project_id, "
        f"{flow._hour('postgresql', 'r.created_at')} AS hour, v.category AS category, "
        "v.delta AS delta FROM new_rows r JOIN tasks t ON t.id = r.task_id "
        "CROSS JOIN LATERAL (VALUES (r.old_category, -1), (r.new_category, 1)) "
        f"v (category, delta) WHERE r.field = 'state' AND {flow._counted('postgresql', 't')}"
    )
    none = _append_path_revision().NONE
    general = flow._apply(flow._statement_events("postgresql", none, "new_rows"))
    return (
        f"CREATE OR REPLACE FUNCTION {HISTORY_INSERT}() RETURNS trigger LANGUAGE plpgsql "
        f"{flow.STATEMENT_PLANNING} AS $$ BEGIN "
        "IF EXISTS (SELECT 1 FROM new_rows s WHERE s.field = 'state') THEN "
        f"IF {short} THEN {flow._apply(moves)}; ELSE {general}; END IF; "
        "END IF; RETURN NULL; END $$"
    )


def _flow():
    return (
        _append_path_revision()
        ._hot_rows()
        .flow_module("postgresql", slotted=True, drop_zeros=False)
    )


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    flow = _flow()
    op.execute(_new_task(flow))
    op.execute(_first_change(flow))


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    # What 0037's upgrade made of the flow functions, made again its way.
    append_path = _append_path_revision()
    append_path._hot_rows()._flow("postgresql", slotted=True, drop_zeros=False)
    op.execute(append_path._appended(_flow()))
