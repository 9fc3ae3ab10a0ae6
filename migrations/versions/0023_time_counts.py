"""Tasks created and completed per hour, a maintained rollup for time series (docs/analytics.md#time)

Revision ID: 0023_time_counts
Revises: 0022_week_start
Create Date: 2026-11-27

``task_time_counts`` holds, per org, project and UTC hour, and again per org, project
and UTC day (``grain``), how many tasks that count were created then (``created``)
and how many that are completed now have their ``completed_at`` then (``completed``).
A time series of created or completed tasks reads whole UTC days where a bucket of
the org's calendar holds the whole day, the hours of a day a bucket edge cuts, and
the tasks themselves only for the part of an hour a quarter-hour zone's midnight cuts.

Days as well as hours: the benchmark org completes about 26 tasks an hour across 8
projects, so a year of hours per project (70,000 rows) is hardly smaller than its
completions (230,000); a year of days is 2,900 rows. Two rows per event is the cost.

Triggers on the tasks keep it in the same statement as the write: an insert, a
delete, and an update of any column the counts depend on (org, project, creation
time, completion time, category, draft, archived, deleted). Each trigger adds the
task's new contributions and takes its old ones in one upsert of the signed
differences (a completion touches only the completion rows: the creation rows net to
zero and are not written), then deletes the rows that fell to zero.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0023_time_counts"
down_revision = "0022_week_start"
branch_labels = None
depends_on = None

NAME = "task_time_counts"
KEY = "org_id, grain, starts_at, project_id"
# The tasks that count, as COUNTED_TASKS_PREDICATE rendered them when this was written.
COUNTED = {
    "sqlite": "{r}.state_category != 'triage' AND {r}.is_draft = 0 "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
    "postgresql": "{r}.state_category != 'triage' AND NOT {r}.is_draft "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
}
#: The UTC hour and day a timestamp falls in, in each database's own storage of it
#: (SQLite: SQLAlchemy's 'YYYY-MM-DD HH:MM:SS.ffffff' text; PostgreSQL: naive UTC).
GRAINS = {
    "sqlite": {
        "hour": "substr({c}, 1, 13) || ':00:00.000000'",
        "day": "substr({c}, 1, 10) || ' 00:00:00.000000'",
    },
    "postgresql": {"hour": "date_trunc('hour', {c})", "day": "date_trunc('day', {c})"},
}
WATCHED = (
    "org_id, project_id, created_at, completed_at, state_category, is_draft, "
    "archived_at, deleted_at"
)


def _counted(dialect, r):
    return "(" + COUNTED[dialect].format(r=r) + ")"


def _done(r):
    """Completed now, with a completion time: what the completed series counts."""
    return f"({r}.state_category = 'completed' AND {r}.completed_at IS NOT NULL)"


def _rows(dialect, r, sign):
    """The signed rows task ``r`` ('OLD' or 'NEW') contributes, when it counts."""
    out = []
    for column, created, completed, extra in (
        ("created_at", sign, 0, ""),
        ("completed_at", 0, sign, f" AND {_done(r)}"),
    ):
        for grain, expression in GRAINS[dialect].items():
            start = expression.format(c=f"{r}.{column}")
            out.append(
                f"SELECT {r}.org_id AS org_id, {r}.project_id AS project_id, "
                f"'{grain}' AS grain, {start} AS starts_at, {created} AS created, "
                f"{completed} AS completed WHERE {_counted(dialect, r)}{extra}"
            )
    return out


def _apply(dialect, *parts):
    """One upsert of the summed signed rows of ``parts`` (OLD -1, NEW +1); what nets
    to zero (the creation rows of a completion) is not written."""
    rows = " UNION ALL ".join(row for r, sign in parts for row in _rows(dialect, r, sign))
    return (
        f"INSERT INTO {NAME} ({KEY}, created, completed) "
        f"SELECT org_id, grain, starts_at, project_id, sum(created), sum(completed) "
        f"FROM ({rows}) d WHERE true GROUP BY org_id, grain, starts_at, project_id "
        "HAVING sum(created) != 0 OR sum(completed) != 0 "
        f"ON CONFLICT ({KEY}) DO UPDATE SET created = {NAME}.created + excluded.created, "
        f"completed = {NAME}.completed + excluded.completed"
    )


def _prune(dialect):
    """Deletes the rows of OLD's keys that fell to zero (any zero row is garbage, so
    mixing the grains' starts is harmless)."""
    starts = ", ".join(
        expression.format(c=f"OLD.{column}")
        for column in ("created_at", "completed_at")
        for expression in GRAINS[dialect].values()
    )
    return (
        f"DELETE FROM {NAME} WHERE org_id = OLD.org_id AND grain IN ('hour', 'day') "
        f"AND starts_at IN ({starts}) AND project_id = OLD.project_id "
        "AND created = 0 AND completed = 0"
    )


def _changed(dialect):
    """Whether an update changes what the task contributes."""
    old, new = _counted(dialect, "OLD"), _counted(dialect, "NEW")
    distinct = "IS NOT" if dialect == "sqlite" else "IS DISTINCT FROM"
    return (
        f"({old} {distinct} {new}) OR ({new} AND (OLD.org_id != NEW.org_id "
        "OR OLD.project_id != NEW.project_id OR OLD.created_at != NEW.created_at "
        f"OR {_done('OLD')} {distinct} {_done('NEW')} "
        f"OR ({_done('NEW')} AND OLD.completed_at != NEW.completed_at)))"
    )


def _create_triggers(dialect):
    old, new = _counted(dialect, "OLD"), _counted(dialect, "NEW")
    bodies = {
        "insert": (new, [_apply(dialect, ("NEW", 1))]),
        "delete": (old, [_apply(dialect, ("OLD", -1)), _prune(dialect)]),
        "update": (
            _changed(dialect),
            [_apply(dialect, ("OLD", -1), ("NEW", 1)), _prune(dialect)],
        ),
    }
    for event, (when, statements) in bodies.items():
        on = f"UPDATE OF {WATCHED}" if event == "update" else event.upper()
        if dialect == "postgresql":
            op.execute(
                f"CREATE FUNCTION {NAME}_{event}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                f"BEGIN {'; '.join(statements)}; RETURN NULL; END $$"
            )
            op.execute(
                f"CREATE TRIGGER {NAME}_on_{event} AFTER {on} ON tasks FOR EACH ROW "
                f"WHEN ({when}) EXECUTE FUNCTION {NAME}_{event}()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {NAME}_on_{event} AFTER {on} ON tasks WHEN {when} "
                f"BEGIN {'; '.join(statements)}; END"
            )


def _backfill(dialect):
    parts = []
    for column, created, completed, extra in (
        ("created_at", 1, 0, ""),
        ("completed_at", 0, 1, f" AND {_done('tasks')}"),
    ):
        for grain, expression in GRAINS[dialect].items():
            start = expression.format(c=f"tasks.{column}")
            parts.append(
                f"SELECT org_id, project_id, '{grain}' AS grain, {start} AS starts_at, "
                f"{created} AS created, {completed} AS completed FROM tasks "
                f"WHERE {_counted(dialect, 'tasks')}{extra}"
            )
    op.execute(
        f"INSERT INTO {NAME} ({KEY}, created, completed) "
        "SELECT org_id, grain, starts_at, project_id, sum(created), sum(completed) "
        f"FROM ({' UNION ALL '.join(parts)}) d GROUP BY org_id, grain, starts_at, project_id"
    )


def upgrade():
    op.create_table(
        NAME,
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("grain", sa.String(4), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.Column("completed", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        # The primary key is the table on SQLite, and holds the counts on PostgreSQL
        # (INCLUDE): a read is an index-only scan, not a fetch of rows scattered over
        # the heap in the order the tasks were written (22 -> 8 ms for a year of days).
        sa.PrimaryKeyConstraint(
            "org_id",
            "grain",
            "starts_at",
            "project_id",
            postgresql_include=["created", "completed"],
        ),
        sqlite_with_rowid=False,
    )
    dialect = op.get_bind().dialect.name
    _create_triggers(dialect)
    _backfill(dialect)


def downgrade():
    for event in ("insert", "delete", "update"):
        if op.get_bind().dialect.name == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event} ON tasks")
            op.execute(f"DROP FUNCTION IF EXISTS {NAME}_{event}()")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {NAME}_on_{event}")
    op.drop_table(NAME)
