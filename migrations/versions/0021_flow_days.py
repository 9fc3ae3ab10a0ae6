"""Status categories per day for the cumulative flow and cycle time (docs/analytics.md#flow)

Revision ID: 0021_flow_days
Revises: 0020_created_days
Create Date: 2026-11-27

The cumulative flow diagram sums, per status category, every move of a task that
counts today: +1 into the category it was created in (the one its first state change
left, else the one it is in now) at its creation, and -1 / +1 out of the old and into
the new category at each state change (docs/analytics.md#flow-over-time).
``task_flow_hours`` keeps those moves summed per org, UTC hour, project and category,
``task_flow_days`` the same per UTC day (hour / 24): the days answer everything before
a range and the whole days inside it, the hours the part of a day between UTC
midnight and the org's midnight. Rows that sum to zero are deleted.

Kept by triggers on both tables that feed it:
- a history row (state) added, removed or rewritten moves its -1/+1, and shifts the
  creation's +1 when it is (or was) the task's first state change;
- a task that starts or stops counting, changes org or project or has its creation
  time rewritten takes its whole history out and puts it back (an index read of its
  own history); a deleted one takes it out *before* the delete, while the history's
  ON DELETE CASCADE has not removed it yet (the cascaded history deletes then find no
  task and take nothing twice);
- a task without state history whose category changes moves its creation's +1.

``task_cycle_times`` holds, per completed task that counts (with a completion time),
its first start (docs/analytics.md#flow-over-time: the first change into a started
state up to its completion, or its creation when it was created started) and the
microseconds from there to ``completed_at``, so cycle time is a range read over the
completion time. A task write that can change it (its status, completion time,
project, counting) or a state history row added, removed or rewritten recomputes the
one task's row from its own history.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0021_flow_days"
down_revision = "0020_created_days"
branch_labels = None
depends_on = None

HOURS, DAYS = "task_flow_hours", "task_flow_days"
COUNTED = {
    "sqlite": "{r}.state_category != 'triage' AND {r}.is_draft = 0 "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
    "postgresql": "{r}.state_category != 'triage' AND NOT {r}.is_draft "
    "AND {r}.archived_at IS NULL AND {r}.deleted_at IS NULL",
}
#: The UTC hour of a timestamp as hours since 1970, from each database's own storage
#: (SQLite: SQLAlchemy's 'YYYY-MM-DD HH:MM:SS.ffffff' text; PostgreSQL: naive UTC).
HOUR = {
    "sqlite": "(CAST(strftime('%s', {x}) AS INTEGER) / 3600)",
    "postgresql": "CAST(floor(extract(epoch FROM {x}) / 3600) AS BIGINT)",
}
WATCHED = "org_id, project_id, created_at, state_category, is_draft, archived_at, deleted_at"
HISTORY_WATCHED = "task_id, field, old_category, new_category, created_at"
CYCLES = "task_cycle_times"
CYCLE_WATCHED = (
    "org_id, project_id, created_at, completed_at, state_category, is_draft, archived_at, "
    "deleted_at"
)
#: Microseconds since 1970 of a timestamp, exact on both databases (SQLite keeps the
#: fraction as six digits after the seconds, or none when it is zero).
MICROS = {
    "sqlite": "(CAST(strftime('%s', {x}) AS INTEGER) * 1000000 "
    "+ CAST(substr({x} || '.000000', 21, 6) AS INTEGER))",
    "postgresql": "CAST(round(extract(epoch FROM {x}) * 1000000) AS BIGINT)",
}
STATE = "{a}.field = 'state'"
NO_HISTORY = (
    "NOT EXISTS (SELECT 1 FROM task_activity a WHERE a.task_id = NEW.id AND a.field = 'state')"
)
#: Conditions a trigger checks before its body that PostgreSQL's WHEN cannot hold (a
#: subquery): a category change moves the creation only for a task with no history,
#: so the usual state change (which has history) writes nothing here.
GUARDS = {"task_flow_on_recategorize": NO_HISTORY}
#: PostgreSQL plans a function's statements without knowing that a transition table or
#: a task's history holds a handful of rows: with the org holding most of a million
#: tasks it chose hash joins over sequential scans of the tasks, and the estimated cost
#: made it JIT-compile each statement (a state change took 200-800 ms instead of 70).
#: Every statement here reads a few rows by key: index nested loops, no JIT.
INDEXED = (
    "SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off"
)


def _counted(dialect, r):
    return "(" + COUNTED[dialect].format(r=r) + ")"


def _hour(dialect, x):
    return HOUR[dialect].format(x=x)


def _first(task_id, state, exclude=None, with_old=False):
    """The category a task was created in: its first state change's old category
    (by time, then id), else ``state``; over its history without the row ``exclude``
    and with the row OLD added (the history as it was before a trigger's change)."""
    rows = (
        "SELECT a.created_at AS at, a.id AS id, a.old_category AS c FROM task_activity a "
        f"WHERE a.task_id = {task_id} AND a.field = 'state'"
    )
    if exclude:
        rows += f" AND a.id != {exclude}"
    if with_old:
        rows += (
            " UNION ALL SELECT OLD.created_at, OLD.id, OLD.old_category "
            f"WHERE OLD.field = 'state' AND OLD.task_id = {task_id}"
        )
    return f"coalesce((SELECT x.c FROM ({rows}) x ORDER BY x.at, x.id LIMIT 1), {state})"


def _task_events(dialect, r, sign):
    """Every move of task ``r`` ('OLD' or 'NEW'), times ``sign``."""
    own = f"{r}.org_id AS org_id, {r}.project_id AS project_id"
    changes = f"FROM task_activity a WHERE a.task_id = {r}.id AND {STATE.format(a='a')}"
    hour = _hour(dialect, "a.created_at")
    return (
        f"SELECT {own}, {_hour(dialect, f'{r}.created_at')} AS hour, "
        f"{_first(f'{r}.id', f'{r}.state_category')} AS category, {sign} AS delta "
        f"UNION ALL SELECT {own}, {hour}, a.old_category, {-sign} {changes} "
        f"UNION ALL SELECT {own}, {hour}, a.new_category, {sign} {changes}"
    )


def _row_events(dialect, row, sign, before, after):
    """A history row's own move (``row`` 'OLD' or 'NEW', times ``sign``) and the shift
    of its task's creation from category ``before`` to ``after``, when the task counts."""
    task = f"FROM tasks t WHERE t.id = {row}.task_id AND {_counted(dialect, 't')}"
    own = "t.org_id AS org_id, t.project_id AS project_id"
    at, created = _hour(dialect, f"{row}.created_at"), _hour(dialect, "t.created_at")
    is_state = STATE.format(a=row)
    return (
        f"SELECT {own}, {at} AS hour, {row}.old_category AS category, {-sign} AS delta "
        f"{task} AND {is_state} "
        f"UNION ALL SELECT {own}, {at}, {row}.new_category, {sign} {task} AND {is_state} "
        f"UNION ALL SELECT {own}, {created}, {before}, -1 {task} "
        f"UNION ALL SELECT {own}, {created}, {after}, 1 {task}"
    )


def _apply(events, guard="true"):
    """Adds ``events`` (org_id, project_id, hour, category, delta) to both tables (when
    ``guard`` holds), then drops the rows that fell to zero."""
    statements = []
    for table, column, unit in ((HOURS, "hour", "hour"), (DAYS, "day", "hour / 24")):
        key = f"org_id, {column}, project_id, category"
        statements.append(
            f"INSERT INTO {table} ({key}, n) SELECT org_id, {unit}, project_id, category, "
            f"sum(delta) FROM ({events}) e WHERE {guard} AND category IS NOT NULL "
            f"GROUP BY org_id, {unit}, project_id, category HAVING sum(delta) != 0 "
            f"ON CONFLICT ({key}) DO UPDATE SET n = {table}.n + excluded.n"
        )
        statements.append(f"DELETE FROM {table} WHERE n = 0")
    return "; ".join(statements)


def _bodies(dialect):
    """(trigger name, timing, event, table, WHEN, body) of every trigger."""
    old, new = _counted(dialect, "OLD"), _counted(dialect, "NEW")
    distinct = "IS NOT" if dialect == "sqlite" else "IS DISTINCT FROM"
    rekeyed = (
        "(OLD.org_id != NEW.org_id OR OLD.project_id != NEW.project_id "
        "OR OLD.created_at != NEW.created_at)"
    )
    no_history = NO_HISTORY
    creation_moves = (
        f"SELECT NEW.org_id AS org_id, NEW.project_id AS project_id, "
        f"{_hour(dialect, 'NEW.created_at')} AS hour, OLD.state_category AS category, "
        f"-1 AS delta WHERE {no_history} UNION ALL SELECT NEW.org_id, NEW.project_id, "
        f"{_hour(dialect, 'NEW.created_at')}, NEW.state_category, 1 WHERE {no_history}"
    )
    new_id = "NEW.id"
    inserted = _row_events(
        dialect,
        "NEW",
        1,
        _first("NEW.task_id", "t.state_category", exclude=new_id),
        _first("NEW.task_id", "t.state_category"),
    )
    removed = _row_events(
        dialect,
        "OLD",
        -1,
        _first("OLD.task_id", "t.state_category", with_old=True),
        _first("OLD.task_id", "t.state_category"),
    )
    # A rewrite is the old row removed, then the new one added.
    rewritten_out = _row_events(
        dialect,
        "OLD",
        -1,
        _first("OLD.task_id", "t.state_category", exclude=new_id, with_old=True),
        _first("OLD.task_id", "t.state_category", exclude=new_id),
    )
    rewritten_in = inserted
    either_state = f"({STATE.format(a='OLD')} OR {STATE.format(a='NEW')})"
    return [
        ("insert", "AFTER", "INSERT", "tasks", new, _apply(_task_events(dialect, "NEW", 1))),
        (
            "rekey",
            "AFTER",
            f"UPDATE OF {WATCHED}",
            "tasks",
            f"({old} {distinct} {new}) OR ({new} AND {rekeyed})",
            _apply(_task_events(dialect, "OLD", -1), old)
            + "; "
            + _apply(_task_events(dialect, "NEW", 1), new),
        ),
        (
            "recategorize",
            "AFTER",
            f"UPDATE OF {WATCHED}",
            "tasks",
            f"{old} AND {new} AND NOT {rekeyed} AND OLD.state_category != NEW.state_category",
            _apply(creation_moves),
        ),
        # Before: the history's ON DELETE CASCADE has not yet taken the rows to count.
        ("delete", "BEFORE", "DELETE", "tasks", old, _apply(_task_events(dialect, "OLD", -1))),
        (
            "history_insert",
            "AFTER",
            "INSERT",
            "task_activity",
            STATE.format(a="NEW"),
            _apply(inserted),
        ),
        (
            "history_delete",
            "AFTER",
            "DELETE",
            "task_activity",
            STATE.format(a="OLD"),
            _apply(removed),
        ),
        (
            "history_update",
            "AFTER",
            f"UPDATE OF {HISTORY_WATCHED}",
            "task_activity",
            either_state,
            _apply(rewritten_out) + "; " + _apply(rewritten_in),
        ),
    ]


def _kept(dialect, r):
    """Whether task ``r`` has a cycle-time row: it counts and is completed, with a time."""
    return (
        f"({_counted(dialect, r)} AND {r}.state_category = 'completed' "
        f"AND {r}.completed_at IS NOT NULL)"
    )


def _cycle_row(dialect, task_id):
    """SELECT of task ``task_id``'s cycle-time row (none unless it is kept)."""
    history = (
        "FROM task_activity a WHERE a.task_id = t.id AND a.field = 'state' "
        "AND a.created_at <= t.completed_at"
    )
    into = (
        f"(SELECT min(a.created_at) {history} AND a.new_category = 'started' "
        "AND (a.old_category IS NULL OR a.old_category != 'started'))"
    )
    out_of = f"(SELECT min(a.created_at) {history} AND a.old_category = 'started')"
    started = (
        f"CASE WHEN {out_of} IS NOT NULL AND ({into} IS NULL OR {out_of} < {into}) "
        f"THEN t.created_at ELSE {into} END"
    )
    micros = MICROS[dialect]
    return (
        "SELECT s.org_id, s.task_id, s.project_id, s.completed_at, s.started_at, "
        f"{micros.format(x='s.completed_at')} - {micros.format(x='s.started_at')} "
        "FROM (SELECT t.org_id AS org_id, t.id AS task_id, t.project_id AS project_id, "
        f"t.completed_at AS completed_at, {started} AS started_at FROM tasks t "
        f"WHERE t.id = {task_id} AND {_kept(dialect, 't')}) s"
    )


def _recompute(dialect, task_id):
    columns = "org_id, task_id, project_id, completed_at, started_at, cycle_us"
    return (
        f"DELETE FROM {CYCLES} WHERE task_id = {task_id}; "
        f"INSERT INTO {CYCLES} ({columns}) {_cycle_row(dialect, task_id)}"
    )


def _cycle_bodies(dialect):
    old, new = _kept(dialect, "OLD"), _kept(dialect, "NEW")
    either_state = "(OLD.field = 'state' OR NEW.field = 'state')"
    return [
        ("insert", "AFTER", "INSERT", "tasks", new, _recompute(dialect, "NEW.id")),
        (
            "update",
            "AFTER",
            f"UPDATE OF {CYCLE_WATCHED}",
            "tasks",
            f"{old} OR {new}",
            _recompute(dialect, "NEW.id"),
        ),
        (
            "history_insert",
            "AFTER",
            "INSERT",
            "task_activity",
            "NEW.field = 'state'",
            _recompute(dialect, "NEW.task_id"),
        ),
        (
            "history_delete",
            "AFTER",
            "DELETE",
            "task_activity",
            "OLD.field = 'state'",
            _recompute(dialect, "OLD.task_id"),
        ),
        (
            "history_update",
            "AFTER",
            f"UPDATE OF {HISTORY_WATCHED}",
            "task_activity",
            either_state,
            _recompute(dialect, "OLD.task_id") + "; " + _recompute(dialect, "NEW.task_id"),
        ),
    ]


def _triggers(dialect):
    """(name, timing, event, table, WHEN, body) of every trigger of this revision."""
    flow = [(f"task_flow_on_{name}", *rest) for name, *rest in _bodies(dialect)]
    cycles = [(f"task_cycle_on_{name}", *rest) for name, *rest in _cycle_bodies(dialect)]
    return flow + cycles


def _statement_events(dialect, old_rows, new_rows):
    """PostgreSQL's history triggers, one per statement: its row triggers run after the
    whole statement, so a row's trigger would see the other rows of the same statement
    already written and misjudge which change was first. ``old_rows`` / ``new_rows``
    are the statement's transition tables (or an empty stand-in): each row's own move,
    and per task touched the creation's shift from the category its history gave before
    the statement (now, without the new rows, with the old ones) to what it gives now.

    Set-based, not a subquery per task: a transition table has no index, so a
    correlated read of it per task is quadratic (a 60,000-row history insert ran for
    hours). Each task's first change comes from one DISTINCT ON over the touched tasks'
    history, the new rows left out by an anti-join (hashed: a NOT IN whose list outgrows
    work_mem is a scan of the list per row)."""
    task = f"JOIN tasks t ON t.id = r.task_id WHERE r.field = 'state' AND {_counted(dialect, 't')}"
    own = "t.org_id AS org_id, t.project_id AS project_id"
    hour = _hour(dialect, "r.created_at")
    touched = (
        f"(SELECT p.task_id FROM {old_rows} p WHERE p.field = 'state' "
        f"UNION SELECT q.task_id FROM {new_rows} q WHERE q.field = 'state')"
    )
    history = (
        "SELECT a.task_id, a.created_at AS at, a.id, a.old_category AS c "
        f"FROM task_activity a JOIN {touched} h ON h.task_id = a.task_id "
        "WHERE a.field = 'state'"
    )
    before_rows = (
        f"{history} AND NOT EXISTS (SELECT 1 FROM {new_rows} n WHERE n.id = a.id) "
        f"UNION ALL SELECT o.task_id, o.created_at, o.id, o.old_category FROM {old_rows} o "
        "WHERE o.field = 'state'"
    )

    def first(rows):
        return (
            f"(SELECT DISTINCT ON (x.task_id) x.task_id, x.c FROM ({rows}) x "
            "ORDER BY x.task_id, x.at, x.id)"
        )

    shifted = (
        f"FROM {touched} k JOIN tasks t ON t.id = k.task_id "
        f"LEFT JOIN {first(before_rows)} b ON b.task_id = t.id "
        f"LEFT JOIN {first(history)} f ON f.task_id = t.id "
        f"WHERE {_counted(dialect, 't')}"
    )
    created = _hour(dialect, "t.created_at")
    return (
        f"SELECT {own}, {hour} AS hour, r.old_category AS category, 1 AS delta "
        f"FROM {old_rows} r {task} "
        f"UNION ALL SELECT {own}, {hour}, r.new_category, -1 FROM {old_rows} r {task} "
        f"UNION ALL SELECT {own}, {hour}, r.old_category, -1 FROM {new_rows} r {task} "
        f"UNION ALL SELECT {own}, {hour}, r.new_category, 1 FROM {new_rows} r {task} "
        f"UNION ALL SELECT {own}, {created}, coalesce(b.c, t.state_category), -1 {shifted} "
        f"UNION ALL SELECT {own}, {created}, coalesce(f.c, t.state_category), 1 {shifted}"
    )


#: The statement triggers may hash: their transition tables hold a statement's rows,
#: which the planner counts (one for a state change, thousands for a recategorized
#: project), so it picks index nested loops for the one and hash joins for the many.
#: No sequential scan of the big tables and no JIT, as for the row triggers.
STATEMENT_PLANNING = "SET enable_seqscan = off SET jit = off"


def _create_statement_triggers(dialect):
    none = "(SELECT * FROM task_activity WHERE false)"
    for name, event, old_rows, new_rows, referencing in (
        ("insert", "INSERT", none, "new_rows", "NEW TABLE AS new_rows"),
        ("delete", "DELETE", "old_rows", none, "OLD TABLE AS old_rows"),
        ("update", "UPDATE", "old_rows", "new_rows", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ):
        trigger = f"task_flow_on_history_{name}"
        body = _apply(_statement_events(dialect, old_rows, new_rows))
        # A statement trigger has no WHEN: most history rows are not status changes
        # (comments, other fields), and those statements stop at this check.
        states = " OR ".join(
            f"EXISTS (SELECT 1 FROM {rows} s WHERE s.field = 'state')"
            for rows in (old_rows, new_rows)
            if rows != none
        )
        op.execute(
            f"CREATE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql "
            f"{STATEMENT_PLANNING} AS $$ BEGIN IF {states} THEN {body}; END IF; "
            "RETURN NULL; END $$"
        )
        # Transition tables allow no column list: every history update runs it (rare).
        op.execute(
            f"CREATE TRIGGER {trigger} AFTER {event} ON task_activity "
            f"REFERENCING {referencing} FOR EACH STATEMENT EXECUTE FUNCTION {trigger}()"
        )


def _create_triggers(dialect):
    for trigger, timing, event, table, when, body in _triggers(dialect):
        if dialect == "postgresql" and trigger.startswith("task_flow_on_history"):
            continue  # per statement, below
        guarded = f"({when}) AND {GUARDS[trigger]}" if trigger in GUARDS else when
        if dialect == "postgresql":
            # The function decides with the trigger's condition too: it is the body
            # that states the counted rule (tests/analytics/test_counted_rule.py).
            result = "OLD" if timing == "BEFORE" else "NULL"
            op.execute(
                f"CREATE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql {INDEXED} AS $$ "
                f"BEGIN IF {guarded} THEN {body}; END IF; RETURN {result}; END $$"
            )
            op.execute(
                f"CREATE TRIGGER {trigger} {timing} {event} ON {table} FOR EACH ROW "
                f"WHEN ({when}) EXECUTE FUNCTION {trigger}()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {trigger} {timing} {event} ON {table} WHEN {guarded} "
                f"BEGIN {body}; END"
            )
    if dialect == "postgresql":
        _create_statement_triggers(dialect)


def _backfill(dialect):
    """What the triggers would have written: every counted task's moves, with its first
    state change found by a window over its history."""
    counted = COUNTED[dialect].format(r="tasks")
    hour = _hour(dialect, "{x}")
    op.execute(
        f"WITH c AS (SELECT id, org_id, project_id, created_at, state_category FROM tasks "
        f"WHERE {counted}), "
        "ch AS (SELECT a.task_id, a.old_category, a.new_category, a.created_at, "
        "row_number() OVER (PARTITION BY a.task_id ORDER BY a.created_at, a.id) AS k "
        "FROM task_activity a JOIN c ON c.id = a.task_id WHERE a.field = 'state'), "
        f"e AS (SELECT c.org_id, c.project_id, {hour.format(x='c.created_at')} AS hour, "
        "coalesce(f.old_category, c.state_category) AS category, 1 AS delta "
        "FROM c LEFT JOIN ch f ON f.task_id = c.id AND f.k = 1 "
        f"UNION ALL SELECT c.org_id, c.project_id, {hour.format(x='ch.created_at')}, "
        "ch.old_category, -1 FROM ch JOIN c ON c.id = ch.task_id "
        f"UNION ALL SELECT c.org_id, c.project_id, {hour.format(x='ch.created_at')}, "
        "ch.new_category, 1 FROM ch JOIN c ON c.id = ch.task_id) "
        f"INSERT INTO {HOURS} (org_id, hour, project_id, category, n) "
        "SELECT org_id, hour, project_id, category, sum(delta) FROM e "
        "WHERE category IS NOT NULL GROUP BY org_id, hour, project_id, category "
        "HAVING sum(delta) != 0"
    )
    op.execute(
        f"INSERT INTO {DAYS} (org_id, day, project_id, category, n) "
        f"SELECT org_id, hour / 24, project_id, category, sum(n) FROM {HOURS} "
        "GROUP BY org_id, hour / 24, project_id, category HAVING sum(n) != 0"
    )


def _backfill_cycles(dialect):
    columns = "org_id, task_id, project_id, completed_at, started_at, cycle_us"
    row = _cycle_row(dialect, "tasks.id").replace("WHERE t.id = tasks.id AND ", "WHERE ")
    op.execute(f"INSERT INTO {CYCLES} ({columns}) {row}")


def upgrade():
    for table, column in ((HOURS, "hour"), (DAYS, "day")):
        op.create_table(
            table,
            sa.Column("org_id", sa.Uuid(), nullable=False),
            sa.Column(column, sa.BigInteger(), nullable=False),
            sa.Column("project_id", sa.Uuid(), nullable=False),
            sa.Column("category", sa.String(16), nullable=False),
            sa.Column("n", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
            sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        )
        op.execute(
            f"CREATE UNIQUE INDEX ux_{table}_bucket ON {table} "
            f"(org_id, {column}, project_id, category)"
        )
        # The triggers' clean-up of rows that fell to zero reads this (usually empty).
        op.execute(f"CREATE INDEX ix_{table}_zero ON {table} (org_id) WHERE n = 0")
    op.create_table(
        CYCLES,
        sa.Column("org_id", sa.Uuid(), nullable=False),
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("project_id", sa.Uuid(), nullable=False),
        sa.Column("completed_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("cycle_us", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["org_id"], ["orgs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("task_id", name=f"pk_{CYCLES}"),
    )
    # The range read: org, completion time, then what the read sums (index-only).
    op.execute(
        f"CREATE INDEX ix_{CYCLES}_completed ON {CYCLES} "
        "(org_id, completed_at, project_id, cycle_us)"
    )
    dialect = op.get_bind().dialect.name
    _create_triggers(dialect)
    _backfill(dialect)
    _backfill_cycles(dialect)


def downgrade():
    dialect = op.get_bind().dialect.name
    for trigger, _, _, table, _, _ in _triggers(dialect):
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS {trigger}()")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.drop_table(CYCLES)
    op.drop_table(DAYS)
    op.drop_table(HOURS)
