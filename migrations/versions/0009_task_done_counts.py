"""forecast's rollup: completions per org, project and hour, kept by triggers on the
history and the tasks (docs/analytics.md#maintained-rollups)

Revision ID: 0009_task_done_counts
Revises: 0008_completed_index
Create Date: 2026-11-24

A completion is a status change into the completed category from any other (the
history row's ``old_category`` is not ``completed``). ``task_done_counts`` holds, per
org, project and UTC hour, how many completions of tasks that count now happened
then. Hours, not weeks: a week starts at midnight in the org's zone, which moves with
daylight saving time and with the org's setting, and every whole-hour zone's midnight
is an hour boundary (forecast reads the odd quarter-hour zones' edges from the history).

The counts change when a completion is recorded, rewritten (an import that backdates
it) or removed for a task that counts, and when a task starts or stops counting,
changes project or is deleted, which moves all its completions at once (an index read
of its own history).
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0009_task_done_counts"
down_revision = "0008_completed_index"
branch_labels = None
depends_on = None

COUNTED = {
    "sqlite": "{r}.state_category != 'triage' AND {r}.is_draft = 0 "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
    "postgresql": "{r}.state_category != 'triage' AND NOT {r}.is_draft "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
}
#: The UTC hour a history row falls in, in each database's own storage of a timestamp
#: (SQLite: SQLAlchemy's 'YYYY-MM-DD HH:MM:SS.ffffff' text).
HOUR = {
    "sqlite": "substr({a}.created_at, 1, 13) || ':00:00.000000'",
    "postgresql": "date_trunc('hour', {a}.created_at)",
}
COMPLETION = (
    "{a}.field = 'state' AND {a}.new_category = 'completed' "
    "AND ({a}.old_category IS NULL OR {a}.old_category != 'completed')"
)
KEY = "org_id, hour_start, project_id"
WATCHED = "org_id, project_id, state_category, is_draft, archived_at, deleted_at"
HISTORY_WATCHED = "task_id, org_id, field, old_category, new_category, created_at"


def _counted(dialect, r):
    return "(" + COUNTED[dialect].format(r=r) + ")"


def _history(dialect, task):
    """The completions in the history of task ``task`` ('OLD' or 'NEW')."""
    return f"task_activity a WHERE a.task_id = {task}.id AND {COMPLETION.format(a='a')}"


def _take(dialect, r, guard="true"):
    """Moves every completion of task ``r`` out of its rows (when ``guard`` holds)."""
    # No alias for the target: SQLite refuses one inside a trigger.
    hour = HOUR[dialect].format(a="a")
    d = "task_done_counts"
    own = f"{guard} AND {d}.org_id = {r}.org_id AND {d}.project_id = {r}.project_id"
    hours = f"{d}.hour_start IN (SELECT {hour} FROM {_history(dialect, r)})"
    return (
        f"UPDATE {d} SET n = n - (SELECT count(*) FROM "
        f"{_history(dialect, r)} AND {hour} = {d}.hour_start) WHERE {own} AND {hours}; "
        f"DELETE FROM {d} WHERE {own} AND {hours} AND {d}.n <= 0"
    )


def _put(dialect, r, guard="true"):
    """Adds every completion of task ``r`` to its rows (when ``guard`` holds)."""
    hour = HOUR[dialect].format(a="a")
    return (
        f"INSERT INTO task_done_counts ({KEY}, n) SELECT {r}.org_id, {hour}, "
        f"{r}.project_id, count(*) FROM {_history(dialect, r)} AND {guard} GROUP BY {hour} "
        f"ON CONFLICT ({KEY}) DO UPDATE SET n = task_done_counts.n + excluded.n"
    )


def _record(dialect, guard="true"):
    """Adds a new history row's completion, when its task counts (and ``guard`` holds)."""
    hour = HOUR[dialect].format(a="NEW")
    return (
        f"INSERT INTO task_done_counts ({KEY}, n) SELECT t.org_id, {hour}, t.project_id, 1 "
        f"FROM tasks t WHERE {guard} AND t.id = NEW.task_id AND {_counted(dialect, 't')} "
        f"ON CONFLICT ({KEY}) DO UPDATE SET n = task_done_counts.n + 1"
    )


def _unrecord(dialect, guard="true"):
    """Takes a removed (or rewritten) history row's completion back out, when its task
    still counts: a task being deleted is no longer there, and took its own out."""
    d = "task_done_counts"
    own = (
        f"{guard} AND {d}.org_id = OLD.org_id AND {d}.hour_start = {HOUR[dialect].format(a='OLD')} "
        f"AND {d}.project_id = (SELECT t.project_id FROM tasks t "
        f"WHERE t.id = OLD.task_id AND {_counted(dialect, 't')})"
    )
    return f"UPDATE {d} SET n = n - 1 WHERE {own}; DELETE FROM {d} WHERE {own} AND {d}.n <= 0"


def _moved(dialect):
    """A task's completions move when it starts or stops counting or changes owner."""
    old, new = _counted(dialect, "OLD"), _counted(dialect, "NEW")
    distinct = "IS NOT" if dialect == "sqlite" else "IS DISTINCT FROM"
    return (
        f"({old} {distinct} {new}) OR ({new} AND "
        "(OLD.project_id != NEW.project_id OR OLD.org_id != NEW.org_id))"
    )


def _create_triggers(dialect):
    completion = "(" + COMPLETION.format(a="NEW") + ")"
    was_completion = "(" + COMPLETION.format(a="OLD") + ")"
    old, new = _counted(dialect, "OLD"), _counted(dialect, "NEW")
    if dialect == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION task_done_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP IN ('UPDATE', 'DELETE') AND {was_completion} THEN
                {_unrecord(dialect)};
              END IF;
              IF TG_OP IN ('INSERT', 'UPDATE') AND {completion} THEN
                {_record(dialect)};
              END IF;
              RETURN NULL;
            END $$
            """
        )
        op.execute(
            f"""
            CREATE FUNCTION task_done_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP IN ('UPDATE', 'DELETE') AND {old} THEN
                {_take(dialect, "OLD")};
              END IF;
              IF TG_OP = 'UPDATE' AND {new} THEN
                {_put(dialect, "NEW")};
              END IF;
              IF TG_OP = 'DELETE' THEN
                RETURN OLD;
              END IF;
              RETURN NULL;
            END $$
            """
        )
        for event, when in (
            ("INSERT", completion),
            ("DELETE", was_completion),
            (f"UPDATE OF {HISTORY_WATCHED}", f"{was_completion} OR {completion}"),
        ):
            name = event.split()[0].lower()
            op.execute(
                f"CREATE TRIGGER task_done_counts_on_history_{name} AFTER {event} ON "
                f"task_activity FOR EACH ROW WHEN ({when}) "
                "EXECUTE FUNCTION task_done_counts_record()"
            )
        op.execute(
            f"CREATE TRIGGER task_done_counts_on_update AFTER UPDATE OF {WATCHED} ON tasks "
            f"FOR EACH ROW WHEN ({_moved(dialect)}) EXECUTE FUNCTION task_done_counts_move()"
        )
        # Before: the history's ON DELETE CASCADE has not yet taken the rows to count.
        op.execute(
            "CREATE TRIGGER task_done_counts_on_delete BEFORE DELETE ON tasks "
            f"FOR EACH ROW WHEN ({old}) EXECUTE FUNCTION task_done_counts_move()"
        )
        return
    op.execute(
        "CREATE TRIGGER task_done_counts_on_history_insert AFTER INSERT ON task_activity "
        f"WHEN {completion} BEGIN {_record(dialect)}; END"
    )
    op.execute(
        "CREATE TRIGGER task_done_counts_on_history_delete AFTER DELETE ON task_activity "
        f"WHEN {was_completion} BEGIN {_unrecord(dialect)}; END"
    )
    # Each half under its own condition (SQLite triggers have no IF).
    unrecord, record = _unrecord(dialect, was_completion), _record(dialect, completion)
    op.execute(
        f"CREATE TRIGGER task_done_counts_on_history_update AFTER UPDATE OF {HISTORY_WATCHED} "
        f"ON task_activity WHEN {was_completion} OR {completion} BEGIN {unrecord}; {record}; END"
    )
    op.execute(
        f"CREATE TRIGGER task_done_counts_on_update AFTER UPDATE OF {WATCHED} ON tasks "
        f"WHEN {_moved(dialect)} BEGIN "
        f"{_take(dialect, 'OLD', old)}; {_put(dialect, 'NEW', new)}; END"
    )
    op.execute(
        "CREATE TRIGGER task_done_counts_on_delete BEFORE DELETE ON tasks "
        f"WHEN {old} BEGIN {_take(dialect, 'OLD')}; END"
    )


def _backfill(dialect):
    hour = HOUR[dialect].format(a="a")
    op.execute(
        f"INSERT INTO task_done_counts ({KEY}, n) SELECT t.org_id, {hour}, t.project_id, "
        f"count(*) FROM task_activity a JOIN tasks t ON t.id = a.task_id "
        f"WHERE {COMPLETION.format(a='a')} AND {_counted(dialect, 't')} "
        f"GROUP BY t.org_id, {hour}, t.project_id"
    )


def upgrade():
    op.create_table(
        "task_done_counts",
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("hour_start", sa.DateTime(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
    )
    op.execute(f"CREATE UNIQUE INDEX ux_task_done_counts_bucket ON task_done_counts ({KEY})")
    dialect = op.get_bind().dialect.name
    _create_triggers(dialect)
    _backfill(dialect)


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for name in ("insert", "delete", "update"):
            op.execute(
                f"DROP TRIGGER IF EXISTS task_done_counts_on_history_{name} ON task_activity"
            )
        op.execute("DROP TRIGGER IF EXISTS task_done_counts_on_update ON tasks")
        op.execute("DROP TRIGGER IF EXISTS task_done_counts_on_delete ON tasks")
        op.execute("DROP FUNCTION IF EXISTS task_done_counts_record()")
        op.execute("DROP FUNCTION IF EXISTS task_done_counts_move()")
    else:
        for name in ("history_insert", "history_delete", "history_update", "update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS task_done_counts_on_{name}")
    op.drop_table("task_done_counts")
