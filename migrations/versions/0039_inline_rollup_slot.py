"""A trigger reads the transaction's rollup slot without a PL/pgSQL call (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0039_inline_rollup_slot
Revises: 0038_slot_task_rollups
Create Date: 2026-11-28

PostgreSQL only. Since 0038 every rollup upsert of a state change names
``rollup_slot()``, fifteen or so calls a write, and each was a PL/pgSQL call that read
one setting: the slot the transaction claimed with its first call. ``rollup_slot()``
is now a one-expression SQL function, which the planner inlines into each trigger
statement: it reads the setting, and calls the claim (0037's loop over the 32
transaction advisory locks, now ``rollup_slot_claim()``) only when the transaction
has no slot yet. What a trigger gets is unchanged.
"""

import importlib.util
from pathlib import Path

from alembic import op


# revision identifiers, used by Alembic.
revision = "0039_inline_rollup_slot"
down_revision = "0038_slot_task_rollups"
branch_labels = None
depends_on = None

#: One SELECT of one expression, no SET clause, not SECURITY DEFINER, not STRICT: what
#: the planner needs to inline a SQL function; VOLATILE, as the claim it may call is.
INLINED = """
CREATE OR REPLACE FUNCTION rollup_slot() RETURNS smallint LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(
    nullif(current_setting('workspace.rollup_slot', true), '')::smallint,
    rollup_slot_claim())
$$"""


def _claim_of_0037() -> str:
    """0037's ``rollup_slot()``: the claim, as it was written then."""
    path = Path(__file__).with_name("0037_flow_append_path.py")
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ROLLUP_SLOT


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    claim = _claim_of_0037().replace(
        "CREATE FUNCTION rollup_slot()", "CREATE FUNCTION rollup_slot_claim()"
    )
    assert "rollup_slot_claim()" in claim, "0037's claim was not found"
    op.execute(claim)
    op.execute(INLINED)


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_claim_of_0037().replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
    op.execute("DROP FUNCTION rollup_slot_claim()")
