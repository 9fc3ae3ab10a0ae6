""" "Which tasks count" is written once (``counted_rule``, workspace/core/models/tasks.py)
and every migration that states it must state exactly that, on both databases: the
triggers keeping the rollups (0007, 0009, 0010, 0011), their backfills, and the partial
indexes (0001, 0008). A trigger that counted drafts, or forgot an archived task, would
drift from the scope every figure starts from (docs/analytics.md#maintained-rollups).

Each migration's ``upgrade()`` runs against a recorder standing in for Alembic's ``op``
for each dialect, so both databases' SQL is checked in any run, with no database.
"""

from __future__ import annotations

import importlib.util
import re
from types import SimpleNamespace
from typing import Any

import alembic
import pytest

from workspace import ROOT
from workspace.core.models.tasks import (
    COMPLETED_TASKS_PREDICATE,
    COUNTED_TASKS_PREDICATE,
    counted_sql,
)

VERSIONS = ROOT / "migrations" / "versions"
DIALECTS = ("sqlite", "postgresql")
#: The migrations whose triggers keep a rollup of the tasks that count.
TRIGGERS = (
    "0007_task_counts",
    "0009_task_done_counts",
    "0010_task_assignee_counts",
    "0011_task_completed_days",
    "0021_flow_days",
    "0023_time_counts",
    "0030_cycle_upsert",
    "0036_hot_rollup_rows",
    "0037_flow_append_path",
    "0038_slot_task_rollups",
    "0040_one_cycle_recompute",
    "0042_flow_first_change",
)
#: Revisions that change PostgreSQL's trigger functions only.
POSTGRESQL_ONLY = ("0037_flow_append_path", "0040_one_cycle_recompute", "0042_flow_first_change")
#: Triggers on another rollup, whose rows are counted tasks already: the cycle-time
#: histogram follows ``task_cycle_times`` (0028, slotted by 0038).
ON_A_ROLLUP = re.compile(r"\bCREATE (OR REPLACE )?(TRIGGER|FUNCTION) task_cycle_weeks_")
#: Trigger functions that leave the decision to a function the same revision makes,
#: which states the rule: the cycle-time triggers call the recompute (0040).
DELEGATES = re.compile(r"\bPERFORM task_cycle_recompute\(")
#: The columns the rule reads: an update of any of them can move a task in or out.
RULE_COLUMNS = set(re.findall(r"(\w+) (?:!=|=|IS) ", counted_sql("sqlite")))


class Recorder:
    """Alembic's ``op`` for one dialect: keeps the SQL and index predicates a migration
    emits, and accepts (and ignores) every other operation."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.sql: list[str] = []
        self.predicates: dict[str, str] = {}

    def get_bind(self) -> Any:
        # A query of the live schema (0036 reads the triggers it re-creates) finds none.
        return SimpleNamespace(
            dialect=SimpleNamespace(name=self.dialect),
            execute=lambda *args, **kwargs: SimpleNamespace(all=lambda: []),
        )

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> None:
        self.sql.append(str(statement))

    def create_index(self, name: Any, *args: Any, **kwargs: Any) -> None:
        where = kwargs.get(f"{self.dialect}_where")
        if where is not None:
            self.predicates[str(name)] = str(where)

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def emitted(revision: str, dialect: str, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """What ``revision``'s upgrade emits on ``dialect`` (a migration that loads another
    one, as 0010 loads 0007, gets the same recorder)."""
    recorder = Recorder(dialect)
    monkeypatch.setattr(alembic, "op", recorder)
    path = VERSIONS / f"{revision}.py"
    spec = importlib.util.spec_from_file_location(f"checked_{revision}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.upgrade()
    return recorder


_WATCHED = re.compile(r"UPDATE OF ([\w, ]+?) ON (\w+)")
#: PostgreSQL's triggers spell the boolean test ``NOT r.is_draft``: the same condition
#: as the rule's ``r.is_draft = false``.
_NOT_DRAFT = re.compile(r"NOT (\w+)\.is_draft\b")
_QUALIFIED = re.compile(r"(\w+)\.(?:state_category|is_draft|archived_at|deleted_at)\b")


def rule_departures(sql: str, dialect: str) -> tuple[int, list[str]]:
    """How often ``sql`` states the rule, and what else in it reads the rule's columns
    (nothing may: a condition over them that is not the rule is a drift). Trigger column
    lists (``UPDATE OF ...``) must name every column of the rule."""
    problems = []
    for columns, table in _WATCHED.findall(sql):
        missing = RULE_COLUMNS - {c.strip() for c in columns.split(",")}
        if table == "tasks" and missing:
            problems.append(f"UPDATE OF misses {sorted(missing)}")
    rest = _WATCHED.sub("", sql)
    if dialect == "postgresql":
        rest = _NOT_DRAFT.sub(r"\1.is_draft = false", rest)
    stated = 0
    for row in [*sorted(set(_QUALIFIED.findall(rest))), ""]:
        rule = counted_sql(dialect, row)
        stated += rest.count(rule)
        rest = rest.replace(rule, "")
    for word in ("'triage'", "is_draft", "archived_at", "deleted_at"):
        if word in rest:
            at = rest.index(word)
            problems.append(f"{word} outside the rule: ...{rest[max(0, at - 80) : at + 80]}...")
    return stated, problems


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("revision", TRIGGERS)
def test_trigger_sql_states_the_counted_rule(revision, dialect, monkeypatch):
    recorder = emitted(revision, dialect, monkeypatch)
    if revision in POSTGRESQL_ONLY and dialect == "sqlite":
        assert recorder.sql == []
        return
    created = re.compile(r"\bCREATE (OR REPLACE )?(TRIGGER|FUNCTION)\b")
    bodies = [s for s in recorder.sql if created.search(s)]
    assert bodies, f"{revision} creates no trigger on {dialect}"
    for statement in recorder.sql:
        stated, problems = rule_departures(statement, dialect)
        assert problems == [], (revision, dialect, statement)
        # Every trigger body (SQLite's trigger, PostgreSQL's function) decides with it.
        function = re.search(r"\bCREATE (OR REPLACE )?FUNCTION\b.* RETURNS trigger\b", statement)
        if DELEGATES.search(statement):
            recompute = [s for s in recorder.sql if "FUNCTION task_cycle_recompute(" in s]
            assert recompute and rule_departures(recompute[0], dialect)[0], revision
            continue
        if ON_A_ROLLUP.search(statement):
            continue
        if statement in bodies and (dialect == "sqlite" or function):
            assert stated, (revision, dialect, statement)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_partial_index_predicates_state_the_counted_rule(dialect, monkeypatch):
    counted = emitted("0001_initial_schema", dialect, monkeypatch).predicates
    completed = emitted("0008_completed_index", dialect, monkeypatch).predicates
    assert counted["ix_tasks_counted"] == COUNTED_TASKS_PREDICATE[dialect]
    assert completed["ix_tasks_completed"] == COMPLETED_TASKS_PREDICATE[dialect]
    assert COUNTED_TASKS_PREDICATE[dialect] == counted_sql(dialect)


@pytest.mark.parametrize(
    "drift",
    [
        "NEW.state_category != 'triage' AND NEW.archived_at IS NULL AND NEW.deleted_at IS NULL",
        "NEW.state_category != 'triage' AND NEW.is_draft = 0 AND NEW.archived_at IS NULL",
        "NEW.is_draft = 0 AND NEW.archived_at IS NULL AND NEW.deleted_at IS NULL",
    ],
)
def test_a_trigger_that_drifts_is_caught(drift):
    """The check itself: a trigger that forgets one condition of the rule fails it."""
    sql = f"CREATE TRIGGER t AFTER INSERT ON tasks WHEN {drift} BEGIN SELECT 1; END"
    stated, problems = rule_departures(sql, "sqlite")
    assert not stated and problems
    watched = "CREATE TRIGGER t AFTER UPDATE OF org_id, is_draft, deleted_at ON tasks BEGIN END"
    assert rule_departures(watched, "sqlite")[1] == [
        "UPDATE OF misses ['archived_at', 'state_category']"
    ]
