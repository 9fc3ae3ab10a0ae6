"""The best SQL we can write by hand for each analytics figure, per database.

Deliberately not the product's statement shape: what a DBA would write for the same
numbers (GROUP BY over the org-leading covering index and a little Python to fold
the groups, GROUPING SETS for the twelve widgets, ``INDEXED BY`` on SQLite where its
planner picks a non-covering index, and reads of the maintained rollups where a figure
needs only what they keep: forecast's weeks from the hourly ``task_done_counts``,
workload's completions from the daily ``task_completed_days``), so that a bad plan in
the product shows up as a ratio above 1. Every figure returns the
same plain shape as :func:`from_api` makes of the API's JSON, and the benchmark
compares the two: a fast statement that counts something else is not a baseline.

``run(sql, params)`` executes one statement on SQLite, PostgreSQL or DuckDB and
returns its rows; statements name parameters as ``:name`` (DuckDB's ``$name`` is
substituted), and avoid ``::`` casts for that reason.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

Run = Callable[[str, dict[str, Any]], list[tuple]]
OPEN = ("backlog", "unstarted", "started")
CATEGORIES = ("backlog", "unstarted", "started", "completed", "cancelled")
PRIORITIES = ("urgent", "high", "medium", "low", "none")
KINDS = ("task", "bug", "feature", "epic")


def key(value: Any) -> str | None:
    """An id as one text whatever the driver returns (hex, hyphens or a UUID)."""
    return None if value is None else str(uuid.UUID(str(value)))


@dataclass
class Context:
    dialect: str  # sqlite | postgresql | duckdb
    org_id: uuid.UUID
    tz: ZoneInfo
    first_project: uuid.UUID
    #: SQLite: pin the index the statement is written for (False: the planner picks).
    pin: bool = True

    # -- how this dialect spells things --------------------------------------------------

    def tasks(self, index: str | None = None) -> str:
        """``tasks t``; on SQLite pinned to ``index`` (its planner otherwise takes a
        narrow index that matches the GROUP BY order and reads the table per row)."""
        if self.pin and self.dialect == "sqlite":
            return f"tasks t INDEXED BY {index}" if index else "tasks t NOT INDEXED"
        return "tasks t"

    @property
    def counted(self) -> str:
        false = "0" if self.dialect == "sqlite" else "false"
        return (
            f"t.org_id = :org AND t.state_category != 'triage' AND t.is_draft = {false} "
            "AND t.archived_at IS NULL AND t.deleted_at IS NULL"
        )

    def epoch(self, column: str) -> str:
        return {
            "sqlite": f"(julianday({column}) - 2440587.5) * 86400.0",
            "postgresql": f"extract(epoch FROM {column})",
            "duckdb": f"epoch({column})",
        }[self.dialect]

    def value(self, v: Any) -> Any:
        """A parameter as this database stores it (SQLite: the app's text forms)."""
        if self.dialect != "sqlite":
            return v
        if isinstance(v, uuid.UUID):
            return v.hex
        if isinstance(v, datetime):
            return v.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
        if isinstance(v, date):
            return v.isoformat()
        return v

    def params(self, **extra: Any) -> dict[str, Any]:
        if self.dialect != "sqlite":
            extra = {
                k: v.astimezone(UTC).replace(tzinfo=None) if isinstance(v, datetime) else v
                for k, v in extra.items()
            }
        return {k: self.value(v) for k, v in {"org": self.org_id, **extra}.items()}

    def today(self, now: datetime) -> date:
        return now.astimezone(self.tz).date()


# -- the figures -----------------------------------------------------------------------


def overview(c: Context, run: Run) -> dict:
    # One pass grouped along the covering index's own order (category, priority,
    # kind): a few dozen groups instead of 17 FILTER expressions per row.
    rows = run(
        "SELECT t.state_category, t.priority, t.kind, count(*), "
        "count(*) FILTER (WHERE t.due_date < :today) "
        f"FROM {c.tasks('ix_tasks_counted')} WHERE {c.counted} "
        "GROUP BY t.state_category, t.priority, t.kind",
        c.params(today=c.today(datetime.now(UTC))),
    )
    out = _overview_shape()
    for cat, prio, kind, n, late in rows:
        _count(out, cat, prio, kind, n)
        if cat not in ("completed", "cancelled"):
            out["overdue"] += late
    return out


def _overview_shape() -> dict:
    return {
        "total": 0,
        "completed": 0,
        "overdue": 0,
        "by_category": dict.fromkeys(CATEGORIES, 0),
        "by_priority": dict.fromkeys(PRIORITIES, 0),
        "by_kind": dict.fromkeys(KINDS, 0),
    }


def _count(out: dict, cat: str, prio: str, kind: str, n: int) -> None:
    out["total"] += n
    out["by_category"][cat] += n
    out["by_priority"][prio] += n
    out["by_kind"][kind] += n
    if cat == "completed":
        out["completed"] += n


def workload(c: Context, run: Run) -> dict:
    # Aggregate first (materialized, so no planner turns it into a lookup per
    # account), then the names for the ~60 groups.
    rows = run(
        "WITH w AS MATERIALIZED (SELECT t.assignee_id, "
        "count(*) FILTER (WHERE t.state_category != 'completed') AS open, "
        "count(*) FILTER (WHERE t.state_category = 'started') AS in_progress, "
        "count(*) FILTER (WHERE t.state_category = 'completed' AND t.completed_at >= :since) "
        f"AS done FROM {c.tasks('ix_tasks_counted')} WHERE {c.counted} "
        "AND t.assignee_id IS NOT NULL GROUP BY t.assignee_id) "
        "SELECT w.assignee_id, w.open, w.in_progress, w.done, a.name FROM w "
        "JOIN accounts a ON a.id = w.assignee_id "
        "ORDER BY w.open DESC, w.in_progress DESC, w.done DESC, a.name",
        c.params(since=datetime.now(UTC) - timedelta(days=30)),
    )
    return {key(r[0]): (r[1], r[2], r[3]) for r in rows}


def pivot(c: Context, run: Run) -> dict:
    # Group by the state id the index carries, name the ~50 states afterwards,
    # instead of joining the states table per task.
    return _pivot_cells(
        c,
        run,
        "SELECT t.assignee_id, t.state_id, count(*) "
        f"FROM {c.tasks('ix_tasks_counted')} WHERE {c.counted} "
        "GROUP BY t.assignee_id, t.state_id",
    )


def _pivot_cells(c: Context, run: Run, statement: str) -> dict:
    """(assignee, state name) -> count, from ``statement``'s (assignee, state id, n)."""
    rows = run(statement, c.params())
    names = dict(
        (key(i), n)
        for i, n in run(
            "SELECT s.id, s.name FROM states s JOIN projects p ON p.id = s.project_id "
            "WHERE p.org_id = :org",
            c.params(),
        )
    )
    cells: dict = defaultdict(int)
    for assignee, state, n in rows:
        cells[(key(assignee) or "unassigned", names[key(state)])] += int(n)
    return dict(cells)


def forecast_bounds(c: Context, weeks: int = 8) -> list[datetime]:
    today = c.today(datetime.now(UTC))
    monday = today - timedelta(days=today.weekday())
    return [
        datetime.combine(monday - timedelta(weeks=weeks - i), time(), c.tz).astimezone(UTC)
        for i in range(weeks + 1)
    ]


def forecast(c: Context, run: Run) -> dict:
    bounds = forecast_bounds(c)
    # The week as one computed group key instead of a FILTER per week: arithmetic on
    # the time when every week is 7 x 24 hours, else (a daylight-saving change inside
    # the span: a week of 167 or 169 hours) a CASE over the week starts.
    if all(b - a == timedelta(weeks=1) for a, b in pairwise(bounds)):
        week = {
            "sqlite": "CAST((julianday(a.created_at) - julianday(:b0)) / 7 AS INTEGER)",
            "postgresql": "floor(extract(epoch FROM a.created_at - :b0) / 604800)",
            "duckdb": "floor((epoch(a.created_at) - epoch(CAST(:b0 AS TIMESTAMP))) / 604800)",
        }[c.dialect]
    else:
        steps = " ".join(f"WHEN a.created_at < :b{i + 1} THEN {i}" for i in range(len(bounds) - 1))
        week = f"CASE {steps} END"
    last = len(bounds) - 1
    rows = run(
        f"SELECT {week} AS w, count(*) FROM task_activity a JOIN tasks t ON t.id = a.task_id "
        "WHERE a.org_id = :org AND a.field = 'state' AND a.new_category = 'completed' "
        f"AND a.created_at >= :b0 AND a.created_at < :b{last} AND (a.old_category IS NULL OR "
        f"a.old_category != 'completed') AND {c.counted} GROUP BY 1",
        c.params(**{f"b{i}": b for i, b in enumerate(bounds)}),
    )
    found = {int(w): n for w, n in rows}
    return {i: found.get(i, 0) for i in range(last)}


def custom(c: Context, run: Run) -> dict:
    rows = run(
        f"SELECT t.assignee_id, count(*) FROM {c.tasks('ix_tasks_counted')} "
        f"WHERE {c.counted} AND t.state_category != 'completed' "
        "AND t.priority IN ('high', 'urgent') GROUP BY t.assignee_id",
        c.params(),
    )
    return {key(a): n for a, n in rows}


def scatter(c: Context, run: Run) -> dict:
    # cycle_id is in no covering index: one scan of the table beats walking
    # ix_tasks_cycle_id in group order and reading the table per row.
    rows = run(
        "SELECT t.cycle_id, count(*), count(*) FILTER (WHERE t.state_category = 'completed') "
        f"FROM {c.tasks()} WHERE {c.counted} AND t.cycle_id IS NOT NULL GROUP BY t.cycle_id",
        c.params(),
    )
    run(  # the cycles listed with zeros, as the API lists them
        "SELECT y.id, y.name, p.id, p.name FROM cycles y JOIN projects p "
        "ON p.id = y.project_id WHERE p.org_id = :org ORDER BY p.name, y.start_date",
        c.params(),
    )
    return {key(i): (n, done) for i, n, done in rows}


def flow(c: Context, run: Run) -> dict:
    rows = run(
        f"SELECT t.state_category, count(*), avg({c.epoch('t.state_entered_at')}) "
        f"FROM {c.tasks('ix_tasks_counted')} "
        f"WHERE {c.counted} AND t.state_category IN ('backlog', 'unstarted', 'started') "
        "GROUP BY t.state_category",
        c.params(),
    )
    now = datetime.now(UTC).timestamp()
    return {cat: (n, round((now - float(avg)) / 86400, 1)) for cat, n, avg in rows}


def dashboard(c: Context, run: Run) -> list[int]:
    """The twelve widgets of bench/analytics.py's TWELVE, as each widget's total."""
    return _dashboard(c, run, f"{c.tasks('ix_tasks_counted')} WHERE {c.counted}", "count(*)")


def _dashboard(c: Context, run: Run, source: str, count: str) -> list[int]:
    done = f"{count} FILTER (WHERE t.state_category = 'completed')"
    if c.dialect == "sqlite":
        # No GROUPING SETS: the three groupings as a UNION ALL (three passes over
        # the covering index or the rollup, each grouped in index order or tiny).
        rows = run(
            f"SELECT 3, t.state_id, NULL, t.kind, NULL, {count}, {done} FROM {source} "
            "GROUP BY t.state_id, t.kind UNION ALL "
            f"SELECT 5, NULL, t.priority, NULL, NULL, {count}, {done} FROM {source} "
            "GROUP BY t.priority UNION ALL "
            f"SELECT 4, NULL, t.priority, NULL, t.assignee_id, {count}, {done} FROM {source} "
            "GROUP BY t.assignee_id, t.priority",
            c.params(),
        )
    else:
        # One pass, three groupings; GROUPING() tells them apart (3: by state and
        # kind, 5: by priority, 4: by assignee and priority).
        rows = run(
            "SELECT GROUPING(t.state_id) * 4 + GROUPING(t.priority) * 2 "
            "+ GROUPING(t.assignee_id), "
            f"t.state_id, t.priority, t.kind, t.assignee_id, {count}, {done} "
            f"FROM {source} GROUP BY GROUPING SETS ("
            "(t.state_id, t.kind), (t.priority), (t.assignee_id, t.priority))",
            c.params(),
        )
    project_of = {
        key(i): key(project)
        for i, project in run(
            "SELECT s.id, s.project_id FROM states s JOIN projects p "
            "ON p.id = s.project_id WHERE p.org_id = :org",
            c.params(),
        )
    }
    run(  # the labels the widgets show
        "SELECT a.id, a.name FROM accounts a JOIN org_members m ON m.account_id = a.id "
        "WHERE m.org_id = :org",
        c.params(),
    )
    t = [0] * 12
    first = key(c.first_project)
    for grouping, state, prio, kind, _assignee, count, count_done in rows:
        n, n_done = int(count or 0), int(count_done or 0)  # sum() of nothing is NULL
        if grouping == 3:  # status, done, open bugs, kinds, project 1, projects
            t[0] += n
            t[1] += n_done
            t[2] += n - n_done if kind == "bug" else 0
            t[5] += n
            t[6] += n if project_of[key(state)] == first else 0
            t[9] += n
            t[10] += n_done
            t[11] += n
        if grouping == 5:  # priority, open by priority
            t[3] += n
            t[4] += n - n_done
        if grouping == 4:  # workload, urgent workload
            t[7] += n - n_done
            t[8] += n - n_done if prio in ("urgent", "high") else 0
    return t


# -- over the maintained rollups (migrations 0007, 0009, 0010) ---------------------------
#
# Where a figure needs only the rollup's dimensions, the best statement a DBA can
# write reads the rollup, not the tasks; the API must be compared with that too.

ROLLUP = "task_counts t WHERE t.org_id = :org"
#: The counts by assignee without the kind (migration 0010): a quarter of the rows.
ASSIGNEE_ROLLUP = "task_assignee_counts t WHERE t.org_id = :org"


def pivot_rollup(c: Context, run: Run) -> dict:
    return _pivot_cells(
        c,
        run,
        f"SELECT t.assignee_id, t.state_id, sum(t.n) FROM {ASSIGNEE_ROLLUP} "
        "GROUP BY t.assignee_id, t.state_id",
    )


def custom_rollup(c: Context, run: Run) -> dict:
    rows = run(
        f"SELECT t.assignee_id, sum(t.n) FROM {ASSIGNEE_ROLLUP} "
        "AND t.state_category != 'completed' "
        "AND t.priority IN ('high', 'urgent') GROUP BY t.assignee_id",
        c.params(),
    )
    return {key(a): int(n) for a, n in rows}


def workload_rollup(c: Context, run: Run) -> dict:
    """Open and in progress from the counts by assignee; the last 30 days' completions
    as whole UTC days from the daily rollup (migration 0011) plus the part-day at the
    window's start from the completed tasks' index: one statement, three reads."""
    since = datetime.now(UTC) - timedelta(days=30)
    first_day = since.date() + timedelta(days=1)
    rows = run(
        "WITH w AS MATERIALIZED (SELECT u.assignee_id, sum(u.open) AS open, "
        "sum(u.in_progress) AS in_progress, sum(u.done) AS done FROM ("
        "SELECT t.assignee_id, "
        "coalesce(sum(t.n) FILTER (WHERE t.state_category != 'completed'), 0) AS open, "
        "coalesce(sum(t.n) FILTER (WHERE t.state_category = 'started'), 0) AS in_progress, "
        f"0 AS done FROM {ASSIGNEE_ROLLUP} AND t.assignee_id IS NOT NULL "
        "GROUP BY t.assignee_id "
        "UNION ALL SELECT d.assignee_id, 0, 0, sum(d.n) FROM task_completed_days d "
        "WHERE d.org_id = :org AND d.completed_on >= :first_day GROUP BY d.assignee_id "
        "UNION ALL SELECT t.assignee_id, 0, 0, count(*) "
        f"FROM {c.tasks('ix_tasks_completed')} WHERE {c.counted} "
        "AND t.state_category = 'completed' AND t.completed_at >= :since "
        "AND t.completed_at < :edge AND t.assignee_id IS NOT NULL GROUP BY t.assignee_id"
        ") u GROUP BY u.assignee_id) "
        "SELECT w.assignee_id, w.open, w.in_progress, w.done, a.name FROM w "
        "JOIN accounts a ON a.id = w.assignee_id "
        "ORDER BY w.open DESC, w.in_progress DESC, w.done DESC, a.name",
        c.params(
            since=since,
            first_day=first_day,
            edge=datetime.combine(first_day, time(), UTC),
        ),
    )
    return {key(r[0]): (int(r[1]), int(r[2]), int(r[3])) for r in rows}


def flow_rollup(c: Context, run: Run) -> dict:
    rows = run(
        f"SELECT t.state_category, sum(t.n), sum(t.entered_ms) FROM {ROLLUP} "
        "AND t.state_category IN ('backlog', 'unstarted', 'started') GROUP BY t.state_category",
        c.params(),
    )
    now = datetime.now(UTC).timestamp()
    epoch = 1_577_836_800  # entered_ms counts milliseconds from 2020-01-01 UTC
    return {
        cat: (int(n), round((now - int(ms) / int(n) / 1000 - epoch) / 86400, 1))
        for cat, n, ms in rows
        if n
    }


def overview_rollup(c: Context, run: Run) -> dict:
    rows = run(
        f"SELECT t.state_category, t.priority, t.kind, sum(t.n) FROM {ROLLUP} "
        "GROUP BY t.state_category, t.priority, t.kind",
        c.params(),
    )
    overdue = run(
        "SELECT coalesce(sum(d.n), 0) FROM task_due_counts d WHERE d.org_id = :org "
        "AND d.due_date < :today",
        c.params(today=c.today(datetime.now(UTC))),
    )[0][0]
    out = _overview_shape()
    for cat, prio, kind, n in rows:
        _count(out, cat, prio, kind, int(n))
    out["overdue"] = int(overdue)
    return out


def dashboard_rollup(c: Context, run: Run) -> list[int]:
    return _dashboard(c, run, ROLLUP, "sum(t.n)")


def on_the_hour(bounds: list[datetime]) -> bool:
    """Whether every week bound falls on a UTC hour, so whole rows of the hourly
    ``task_done_counts`` answer each week (false in a quarter- or half-hour zone)."""
    return all(b.minute == b.second == b.microsecond == 0 for b in bounds)


def forecast_rollup(c: Context, run: Run) -> dict:
    """Completions per week from the hourly rollup (migration 0009): the weeks as a
    VALUES list joined to a range of the org's hours, so each week is exact whatever
    its length (a DST week is 167 or 169 hours), one group per week. Only for weeks
    that start on the hour (candidates() offers it only then)."""
    bounds = forecast_bounds(c)
    weeks = ", ".join(f"({i}, :b{i}, :b{i + 1})" for i in range(len(bounds) - 1))
    rows = run(
        f"WITH w(i, lo, hi) AS (VALUES {weeks}) SELECT w.i, sum(d.n) FROM w "
        "JOIN task_done_counts d ON d.org_id = :org AND d.hour_start >= w.lo "
        "AND d.hour_start < w.hi GROUP BY w.i",
        c.params(**{f"b{i}": b for i, b in enumerate(bounds)}),
    )
    found = {int(i): int(n) for i, n in rows}
    return {i: found.get(i, 0) for i in range(len(bounds) - 1)}


FIGURES: dict[str, Callable[[Context, Run], Any]] = {
    "overview": overview,
    "workload": workload,
    "pivot": pivot,
    "forecast": forecast,
    "custom": custom,
    "scatter": scatter,
    "flow": flow,
    "dashboard": dashboard,
}
ROLLUP_FIGURES: dict[str, Callable[[Context, Run], Any]] = {
    "overview": overview_rollup,
    "workload": workload_rollup,
    "pivot": pivot_rollup,
    "custom": custom_rollup,
    "flow": flow_rollup,
    "dashboard": dashboard_rollup,
    "forecast": forecast_rollup,
}


def candidates(c: Context) -> dict[str, list[tuple[str, Context, Callable]]]:
    """Per figure, every hand-written shape worth timing; the fastest is "best SQL"."""
    out: dict[str, list[tuple[str, Context, Callable]]] = {}
    for name, figure in FIGURES.items():
        shapes = [("scan", c, figure)]
        if c.dialect == "sqlite":
            shapes = [
                ("scan, pinned index", c, figure),
                ("scan, planner's index", replace(c, pin=False), figure),
            ]
        rollup = ROLLUP_FIGURES.get(name)
        if name == "forecast" and not on_the_hour(forecast_bounds(c)):
            rollup = None  # weeks that start inside an hour: the hours alone cannot say
        if rollup:
            shapes.append(("rollups" if name == "overview" else "rollup", c, rollup))
        out[name] = shapes
    return out


# -- the API's answers in the same shape -------------------------------------------------


def from_api(name: str, body: Any) -> Any:
    if name == "overview":
        return {k: body[k] for k in ("total", "completed", "overdue")} | {
            "by_category": body["by_category"],
            "by_priority": body["by_priority"],
            "by_kind": body["by_kind"],
        }
    if name == "workload":
        return {
            key(r["assignee_id"]): (r["open"], r["in_progress"], r["completed_30d"]) for r in body
        }
    if name == "pivot":
        return {(c["row"], c["col"]): c["count"] for c in body["cells"]}
    if name == "forecast":
        return {i: w["completed"] for i, w in enumerate(body["series"])}
    if name == "custom":
        return {key(p["id"]): p["value"] for p in body["points"]}
    if name == "scatter":
        return {key(p["id"]): (p["scope"], p["completed"]) for p in body if p["scope"]}
    if name == "flow":
        return {
            c["category"]: (c["wip"], round(c["avg_age_days"], 1))
            for c in body["categories"]
            if c["wip"]
        }
    if name == "dashboard":
        return [sum(p["value"] for p in w["points"]) for w in body["widgets"]]
    raise KeyError(name)


def same(name: str, api: Any, best: Any) -> bool:
    """Equal answers; flow's ages may differ by the rounding of the moment they ran."""
    if name == "flow":
        return api.keys() == best.keys() and all(
            api[k][0] == best[k][0] and abs(api[k][1] - best[k][1]) <= 0.11 for k in api
        )
    return api == best
