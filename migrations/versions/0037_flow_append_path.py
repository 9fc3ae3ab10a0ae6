"""A state change appended to a task's history costs the flow rollups two upserts, not a walk of the history (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0037_flow_append_path
Revises: 0036_hot_rollup_rows
Create Date: 2026-11-28

PostgreSQL only; SQLite's row triggers are unchanged. Measured on one connection
(docs/scaling.md#hot-writes), the flow rollups were most of a state change's trigger
cost, and it grew with the task's history, for two reasons:

- **The history trigger walked the task's history.** Besides each new row's own move
  (its old category loses a task in its hour, its new category gains one), it
  recomputed the category each touched task was created in, from a DISTINCT ON over
  the task's whole history, twice per table, because a row inserted before the task's
  first change moves the task's creation to another category. Nearly every state
  change comes after an earlier one of its task, and then the first change, and the
  creation's category, stand. The function now checks that (one index probe per new
  state row) and, when it holds for every new row, applies only the rows' own moves.
  Any other statement (a task's first change, a backdated import) takes the general
  path unchanged.
- **No update of a flow row was HOT.** The partial index ``ix_<table>_zero`` (``WHERE n
  = 0``, for the triggers' ``DELETE ... WHERE n = 0``) names ``n``, so every update of a
  count wrote new index entries and left a dead row, which each later ``DELETE`` walked
  again. The triggers no longer delete rows that fall to zero (readers sum a bucket, so
  a zero row reads as nothing, as a bucket whose slots cancel already did); the hourly
  fold deletes them (``analytics.fold_slots``), and the index goes.

And a writing transaction claims a slot of its own: ``rollup_slot()`` takes the first
free of 32 transaction advisory locks (starting from the backend's pid, so a backend
tends to keep its slot) and remembers it for the transaction. Up to 32 concurrent
writers never share a row; a slot by ``pg_backend_pid() % 8`` had two backends in one
slot as often as not (a bench run with 8 writers spent 88% of its lock waits in the
history INSERT). Past 32 they share, as before. Slot 0 is the fold's alone: a writer
in slot 0 could hold the row the fold was moving into while waiting for one the fold
had taken, and a bench run saw that deadlock. The fold also skips the rows writers
hold (workspace/analytics/slot_fold.py).
"""

import importlib.util
from pathlib import Path

from alembic import op


# revision identifiers, used by Alembic.
revision = "0037_flow_append_path"
down_revision = "0036_hot_rollup_rows"
branch_labels = None
depends_on = None

FUNCTION = "task_flow_on_history_insert"
WRITER_SLOTS = 32
#: The first key of the slots' transaction advisory locks (the second is the slot): a
#: two-key lock, apart from the one-key locks of the PDF render slots.
SLOT_LOCKS = 31
#: Claims a slot for the transaction once; later triggers of the transaction read it.
ROLLUP_SLOT = f"""
CREATE FUNCTION rollup_slot() RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
  claimed int := nullif(current_setting('workspace.rollup_slot', true), '')::int;
BEGIN
  IF claimed IS NOT NULL THEN RETURN claimed; END IF;
  FOR i IN 0..{WRITER_SLOTS - 1} LOOP
    claimed := (pg_backend_pid() + i) % {WRITER_SLOTS} + 1;
    EXIT WHEN pg_try_advisory_xact_lock({SLOT_LOCKS}, claimed);
    claimed := NULL;
  END LOOP;
  -- Every slot taken: share the backend's own, waiting on a row as writers did before.
  claimed := coalesce(claimed, pg_backend_pid() % {WRITER_SLOTS} + 1);
  PERFORM set_config('workspace.rollup_slot', claimed::text, true);
  RETURN claimed;
END $$"""
NONE = "(SELECT * FROM task_activity WHERE false)"
TABLES = ("task_flow_hours", "task_flow_days")


def _hot_rows(writer_slots=True):
    """0036's trigger code; with ``writer_slots``, adding into the slot the transaction
    claimed."""
    path = Path(__file__).with_name("0036_hot_rollup_rows.py")
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.op = op
    if writer_slots:
        module._slot = lambda dialect: "rollup_slot()"
    return module


def _appended(flow):
    """The history insert trigger: each new row's own move when every new state row
    has an earlier state change of its task (the earliest new row of a task then has an
    earlier row that was there before the statement, so the task's first change
    stands), else 0021's general path."""
    counted = flow._counted("postgresql", "t")
    every_row_follows = (
        "NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.field = 'state' AND NOT EXISTS ("
        "SELECT 1 FROM task_activity a WHERE a.task_id = n.task_id AND a.field = 'state' "
        "AND a.created_at <= n.created_at AND (a.created_at, a.id) < (n.created_at, n.id)))"
    )
    moves = (
        "SELECT t.org_id AS org_id, t.project_id AS project_id, "
        f"{flow._hour('postgresql', 'r.created_at')} AS hour, v.category AS category, "
        "v.delta AS delta FROM new_rows r JOIN tasks t ON t.id = r.task_id "
        "CROSS JOIN LATERAL (VALUES (r.old_category, -1), (r.new_category, 1)) "
        f"v (category, delta) WHERE r.field = 'state' AND {counted}"
    )
    general = flow._apply(flow._statement_events("postgresql", NONE, "new_rows"))
    return (
        f"CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql "
        f"{flow.STATEMENT_PLANNING} AS $$ BEGIN "
        "IF EXISTS (SELECT 1 FROM new_rows s WHERE s.field = 'state') THEN "
        f"IF {every_row_follows} THEN {flow._apply(moves)}; ELSE {general}; END IF; "
        "END IF; RETURN NULL; END $$"
    )


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(ROLLUP_SLOT)
    hot_rows = _hot_rows()
    hot_rows._flow("postgresql", slotted=True, drop_zeros=False)
    hot_rows._done("postgresql", slotted=True)
    op.execute(_appended(hot_rows.flow_module("postgresql", slotted=True, drop_zeros=False)))
    for table in TABLES:
        op.execute(f"DROP INDEX ix_{table}_zero")


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DELETE FROM {table} WHERE n = 0")
        op.execute(f"CREATE INDEX ix_{table}_zero ON {table} (org_id) WHERE n = 0")
    hot_rows = _hot_rows(writer_slots=False)
    hot_rows._flow("postgresql", slotted=True)
    hot_rows._done("postgresql", slotted=True)
    op.execute("DROP FUNCTION rollup_slot()")
