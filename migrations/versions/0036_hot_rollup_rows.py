"""Many writers on one project no longer queue on shared rollup rows (issue 31, docs/scaling.md#hot-writes)

Revision ID: 0036_hot_rollup_rows
Revises: 0035_webhook_backoff
Create Date: 2026-11-28

Every task write updates a handful of rollup rows that all writers of a project share
(the project's bucket in ``task_counts``, this hour's completions, today's flow). A
row lock is held from the trigger's UPDATE to the commit, so concurrent writers ran
one after another (0.60 of the throughput without triggers, bench/hot_writes.py).
Two changes, measured together (either alone gained nothing):

- **Slots** for the rollups whose triggers read other rows (``task_flow_hours``,
  ``task_flow_days``, ``task_done_counts``): a ``slot`` column joins the unique key
  and each PostgreSQL backend adds its deltas to its own slot
  (``pg_backend_pid() % 8``), so two writers meet on a row only by chance. A slot may
  hold a negative count; readers sum over the slots (they already summed per
  bucket) and a row is deleted when it reaches zero. SQLite has one writer: slot 0.
- **Deferred** row triggers on PostgreSQL for the rollups that are pure arithmetic on
  the task's old and new values (``task_counts``, ``task_totals``,
  ``task_assignee_counts``, ``task_due_counts``, ``task_plan_counts``,
  ``task_completed_days``, ``task_time_counts``) and for the cycle-time recompute
  (which reads the task's final state): constraint triggers, ``INITIALLY DEFERRED``,
  run at COMMIT, so their locks last only the commit. A read of the rollups inside
  the writing transaction, and a project's delete (whose cascade takes the rows they
  would write to), run them first (``transaction.run_deferred_triggers``).

The flow and completion triggers stay immediate: they read the task's history, which
at COMMIT would already hold rows written later in the transaction.
"""

import importlib.util
from pathlib import Path

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0036_hot_rollup_rows"
down_revision = "0035_webhook_backoff"
branch_labels = None
depends_on = None

SLOTS = 8
#: table -> its bucket key before this revision.
SLOTTED = {
    "task_flow_hours": "org_id, hour, project_id, category",
    "task_flow_days": "org_id, day, project_id, category",
    "task_done_counts": "org_id, hour_start, project_id",
}
DEFERRED = (
    "task_counts_on_",
    "task_totals_on_",
    "task_assignee_counts_on_",
    "task_due_counts_on_",
    "task_plan_counts_on_",
    "task_completed_days_on_",
    "task_time_counts_on_",
    "task_cycle_on_",
)


def _slot(dialect):
    return f"(pg_backend_pid() % {SLOTS})" if dialect == "postgresql" else "0"


def _revision(filename):
    path = Path(__file__).with_name(filename)
    spec = importlib.util.spec_from_file_location(f"revision_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Replace:
    """Stands in for ``op`` while an earlier revision's trigger code runs again: only
    the triggers named ``prefix``, their functions replaced in place on PostgreSQL (the
    triggers themselves are unchanged), dropped and made again on SQLite (a SQLite
    trigger holds its body)."""

    def __init__(self, dialect, prefix):
        self.dialect, self.prefix = dialect, prefix

    def execute(self, sql):
        words = sql.split()
        kind, name = words[1], words[2].split("(")[0]
        if not name.startswith(self.prefix):
            return
        if self.dialect == "postgresql":
            if kind == "FUNCTION":
                op.execute(sql.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
            return
        op.execute(f'DROP TRIGGER IF EXISTS "{name}"')
        op.execute(sql)


def _flow(dialect, slotted, drop_zeros=True):
    """0021's flow triggers again, adding into the writer's slot when ``slotted``."""
    flow = flow_module(dialect, slotted, drop_zeros)
    flow.op = _Replace(dialect, "task_flow_on_")
    flow._create_triggers(dialect)


def flow_module(dialect, slotted, drop_zeros=True):
    """0021's trigger code, adding into the writer's slot when ``slotted`` and, unless
    ``drop_zeros`` is false, deleting the rows that fell to zero (0037 leaves that to
    the fold)."""
    flow = _revision("0021_flow_days.py")
    if slotted:
        slot = _slot(dialect)

        def _apply(events, guard="true"):
            statements = []
            for table, column, unit in (
                (flow.HOURS, "hour", "hour"),
                (flow.DAYS, "day", "hour / 24"),
            ):
                key = f"org_id, {column}, project_id, category"
                statements.append(
                    f"INSERT INTO {table} ({key}, slot, n) SELECT org_id, {unit}, project_id, "
                    f"category, {slot}, sum(delta) FROM ({events}) e WHERE {guard} "
                    f"AND category IS NOT NULL GROUP BY org_id, {unit}, project_id, category "
                    f"HAVING sum(delta) != 0 "
                    f"ON CONFLICT ({key}, slot) DO UPDATE SET n = {table}.n + excluded.n"
                )
                if drop_zeros:
                    statements.append(f"DELETE FROM {table} WHERE n = 0")
            return "; ".join(statements)

        flow._apply = _apply
    return flow


def _done(dialect, slotted):
    """0009's completion triggers again; slotted, every change is a delta upserted into
    the writer's slot, and a row that falls to zero is deleted."""
    done = _revision("0009_task_done_counts.py")
    if slotted:
        slot, d, key = _slot(dialect), "task_done_counts", done.KEY

        def upsert(select_, zero):
            return (
                f"INSERT INTO {d} ({key}, slot, n) {select_} "
                f"ON CONFLICT ({key}, slot) DO UPDATE SET n = {d}.n + excluded.n; "
                f"DELETE FROM {d} WHERE {zero} AND {d}.n = 0"
            )

        def _take_or_put(dialect, r, sign, guard="true"):
            hour = done.HOUR[dialect].format(a="a")
            return upsert(
                f"SELECT {r}.org_id, {hour}, {r}.project_id, {slot}, {sign}count(*) "
                f"FROM {done._history(dialect, r)} AND {guard} GROUP BY {hour}",
                f"{d}.org_id = {r}.org_id AND {d}.project_id = {r}.project_id",
            )

        def _record(dialect, guard="true", sign=""):
            row = "OLD" if sign else "NEW"
            hour = done.HOUR[dialect].format(a=row)
            return upsert(
                f"SELECT t.org_id, {hour}, t.project_id, {slot}, {sign}1 FROM tasks t "
                f"WHERE {guard} AND t.id = {row}.task_id AND {done._counted(dialect, 't')}",
                f"{d}.org_id = {row}.org_id AND {d}.hour_start = {hour}",
            )

        done._take = lambda dialect, r, guard="true": _take_or_put(dialect, r, "-", guard)
        done._put = lambda dialect, r, guard="true": _take_or_put(dialect, r, "", guard)
        done._record = _record
        done._unrecord = lambda dialect, guard="true": _record(dialect, guard, "-")
    done.op = _Replace(dialect, "task_done_counts_")
    done._create_triggers(dialect)


def _defer(deferred):
    """PostgreSQL: the named AFTER row triggers as deferred constraint triggers (or,
    not ``deferred``, back as plain ones), each otherwise as it was."""
    rows = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal "
                "AND c.relname IN ('tasks', 'task_activity') AND (t.tgtype & 1) = 1 "
                "AND (t.tgtype & 2) = 0"
            )
        )
        .all()
    )
    for name, table, definition in rows:
        if not name.startswith(DEFERRED):
            continue
        if deferred:
            definition = definition.replace(
                "CREATE TRIGGER", "CREATE CONSTRAINT TRIGGER", 1
            ).replace(" FOR EACH ROW", " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW", 1)
        else:
            definition = definition.replace(
                "CREATE CONSTRAINT TRIGGER", "CREATE TRIGGER", 1
            ).replace(" DEFERRABLE INITIALLY DEFERRED", "", 1)
        op.execute(f'DROP TRIGGER "{name}" ON {table}')
        op.execute(definition)


def upgrade():
    dialect = op.get_bind().dialect.name
    for table, key in SLOTTED.items():
        op.add_column(
            table, sa.Column("slot", sa.SmallInteger(), nullable=False, server_default="0")
        )
        op.execute(f"DROP INDEX ux_{table}_bucket")
        op.execute(f"CREATE UNIQUE INDEX ux_{table}_bucket ON {table} ({key}, slot)")
    _flow(dialect, slotted=True)
    _done(dialect, slotted=True)
    if dialect == "postgresql":
        _defer(True)


def downgrade():
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        _defer(False)
    for table, key in SLOTTED.items():
        # The slots folded back into one row per bucket.
        op.execute(
            f"CREATE TEMPORARY TABLE folded_{table} AS SELECT {key}, sum(n) AS n "
            f"FROM {table} GROUP BY {key} HAVING sum(n) != 0"
        )
        op.execute(f"DELETE FROM {table}")
        op.execute(f"DROP INDEX ux_{table}_bucket")
    # The triggers first: SQLite refuses to drop a column a trigger still names.
    _flow(dialect, slotted=False)
    _done(dialect, slotted=False)
    for table, key in SLOTTED.items():
        op.execute(f"ALTER TABLE {table} DROP COLUMN slot")
        op.execute(f"CREATE UNIQUE INDEX ux_{table}_bucket ON {table} ({key})")
        op.execute(f"INSERT INTO {table} ({key}, n) SELECT {key}, n FROM folded_{table}")
        op.execute(f"DROP TABLE folded_{table}")
