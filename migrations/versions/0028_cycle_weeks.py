"""Cycle time's histogram per UTC week and hour of cycle time (docs/analytics.md#flow-over-time)

Revision ID: 0028_cycle_weeks
Revises: 0027_cycle_rank_index
Create Date: 2026-11-27

``task_cycle_weeks`` counts the rows of ``task_cycle_times`` per org, UTC week
(numbered from the week of 1970-01-01, Monday to Monday) and hour of cycle time
(``bucket``; -1 for a completion without a start). Triggers on ``task_cycle_times``
keep it in the same statement: an insert adds one, a delete takes one (an update, of
the columns it depends on, both), and a row that falls to zero goes. A delete only
ever updates: cascaded from an org, it finds the histogram's rows already gone.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0028_cycle_weeks"
down_revision = "0027_cycle_rank_index"
branch_labels = None
depends_on = None

NAME = "task_cycle_weeks"
WEEK = {
    "sqlite": "((CAST(julianday(substr({r}.completed_at, 1, 10)) - 2440587.5 AS INTEGER) + 3) / 7)",
    "postgresql": "(((CAST({r}.completed_at AS DATE) - DATE '1970-01-01') + 3) / 7)",
}
BUCKET = "coalesce({r}.cycle_us / 3600000000, -1)"


def _key(dialect: str, r: str) -> tuple[str, str, str]:
    return f"{r}.org_id", WEEK[dialect].format(r=r), BUCKET.format(r=r)


def _add(dialect: str) -> str:
    org, week, bucket = _key(dialect, "NEW")
    return (
        f"INSERT INTO {NAME} (org_id, week, bucket, n) VALUES ({org}, {week}, {bucket}, 1) "
        f"ON CONFLICT (org_id, week, bucket) DO UPDATE SET n = {NAME}.n + 1"
    )


def _take(dialect: str) -> list[str]:
    org, week, bucket = _key(dialect, "OLD")
    where = f"org_id = {org} AND week = {week} AND bucket = {bucket}"
    return [
        f"UPDATE {NAME} SET n = n - 1 WHERE {where}",
        f"DELETE FROM {NAME} WHERE {where} AND n <= 0",
    ]


CHANGED = (
    "OLD.org_id IS NOT NEW.org_id OR OLD.completed_at IS NOT NEW.completed_at "
    "OR OLD.cycle_us IS NOT NEW.cycle_us"
)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        NAME,
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("week", sa.Integer(), nullable=False),
        sa.Column("bucket", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("org_id", "week", "bucket", postgresql_include=["n"]),
        sqlite_with_rowid=False,
    )
    org, week, bucket = _key(dialect, "c")
    op.execute(
        f"INSERT INTO {NAME} (org_id, week, bucket, n) "
        f"SELECT {org}, {week}, {bucket}, count(*) FROM task_cycle_times c "
        f"GROUP BY {org}, {week}, {bucket}"
    )
    if dialect == "postgresql":
        op.execute(
            f"CREATE FUNCTION {NAME}_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF TG_OP IN ('DELETE', 'UPDATE') THEN {'; '.join(_take(dialect))}; END IF; "
            f"IF TG_OP IN ('INSERT', 'UPDATE') THEN {_add(dialect)}; END IF; "
            "RETURN NULL; END $$"
        )
        pg_changed = CHANGED.replace(" IS NOT ", " IS DISTINCT FROM ")
        op.execute(
            f"CREATE TRIGGER {NAME}_on_insert_delete AFTER INSERT OR DELETE ON task_cycle_times "
            f"FOR EACH ROW EXECUTE FUNCTION {NAME}_keep()"
        )
        op.execute(
            f"CREATE TRIGGER {NAME}_on_update AFTER UPDATE ON task_cycle_times "
            f"FOR EACH ROW WHEN ({pg_changed}) EXECUTE FUNCTION {NAME}_keep()"
        )
        return
    op.execute(
        f"CREATE TRIGGER {NAME}_on_insert AFTER INSERT ON task_cycle_times "
        f"BEGIN {_add(dialect)}; END"
    )
    op.execute(
        f"CREATE TRIGGER {NAME}_on_delete AFTER DELETE ON task_cycle_times "
        f"BEGIN {'; '.join(_take(dialect))}; END"
    )
    op.execute(
        f"CREATE TRIGGER {NAME}_on_update AFTER UPDATE ON task_cycle_times WHEN {CHANGED} "
        f"BEGIN {'; '.join(_take(dialect))}; {_add(dialect)}; END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_insert_delete ON task_cycle_times")
        op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_update ON task_cycle_times")
        op.execute(f"DROP FUNCTION IF EXISTS {NAME}_keep()")
    else:
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event}")
    op.drop_table(NAME)
