"""A checked PQL tree -> one SQLAlchemy condition over ``Task`` columns.

Names (states, people, projects, cycles, modules) resolve within the org only. Every
comparison on a column that can be empty also requires it not to be empty, so each
condition is plainly true or false and ``NOT`` means "everything else" (no SQL NULL
logic leaks into what a user sees).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, false, not_, or_, select, true

from workspace.analytics.pql.hints import did_you_mean
from workspace.analytics.pql.parser import (
    And,
    Call,
    Compare,
    Empty,
    Node,
    Not,
    Or,
    PQLError,
    Value,
    field_type,
)
from workspace.analytics.scope import Scope, counted_predicate, overdue_condition
from workspace.core.models import (
    Account,
    Cycle,
    Module,
    OrgMember,
    Priority,
    Project,
    State,
    Task,
    TaskKind,
)
from workspace.core.models.projects import COUNTED_CATEGORIES
from workspace.core.search_index import matching_tasks, parse_terms
from workspace.dbfunctions import equals_ignoring_case, unicode_lower
from workspace.extensions import db

ENUMS = {
    "statusCategory": [c.value for c in COUNTED_CATEGORIES],
    "priority": [p.value for p in Priority],
    "kind": [k.value for k in TaskKind],
}
COLUMNS = {
    "status": Task.state_id,
    "statusCategory": Task.state_category,
    "priority": Task.priority,
    "kind": Task.kind,
    "assignee": Task.assignee_id,
    "project": Task.project_id,
    "cycle": Task.cycle_id,
    "module": Task.module_id,
    "title": Task.title,
    "text": Task.id,
    "dueDate": Task.due_date,
    "createdAt": Task.created_at,
    "completedAt": Task.completed_at,
}
NULLABLE = {"assignee", "cycle", "module", "dueDate", "completedAt"}


class Compiler:
    def __init__(self, scope: Scope, current_account_id: uuid.UUID | None) -> None:
        self.scope = scope
        self.org_id = scope.org_id
        self.current_account_id = current_account_id

    def compile(self, node: Node) -> ColumnElement[bool]:
        if isinstance(node, And):
            return and_(*(self.compile(n) for n in node.items))
        if isinstance(node, Or):
            return or_(*(self.compile(n) for n in node.items))
        if isinstance(node, Not):
            return not_(self.compile(node.expr))
        if isinstance(node, Call):
            if node.name == "isOverdue":
                return overdue_condition(self.scope)
            if node.name == "isCounted":
                # What analytics counts (scope.py): the task list shows drafts and
                # triage too, so a drill-down link says it (docs/pql.md).
                return counted_predicate()
            return Task.assignee_id.is_(None)
        if isinstance(node, Empty):
            column = COLUMNS[node.field]
            if node.field not in NULLABLE:
                return true() if node.negated else false()
            return column.is_not(None) if node.negated else column.is_(None)
        return self._compare(node)

    def _compare(self, node: Compare) -> ColumnElement[bool]:
        kind = field_type(node.field)
        column = COLUMNS[node.field]
        if kind in ("date", "time"):
            value = node.values[0]
            try:
                condition = self._dates(node, column, self._day(value))
            except OverflowError:
                raise PQLError(
                    "that date is out of range; use a date between 0001-01-02 and 9999-12-30.",
                    line=value.pos.line,
                    column=value.pos.column,
                ) from None
        elif kind == "text":
            condition = self._text(node, column)
        elif kind == "search":
            condition = self._search(node)
        else:
            allowed = self._allowed(node, kind)
            positive = column.in_(allowed)
            condition = positive if node.op in ("=", "in") else column.not_in(allowed)
        if node.field in NULLABLE:
            condition = and_(column.is_not(None), condition)
        return condition

    # -- values ----------------------------------------------------------------------

    def _allowed(self, node: Compare, kind: str) -> list[Any]:
        out: list[Any] = []
        for value in node.values:
            if kind == "enum":
                out.append(self._enum(node.field, value))
            else:
                out.extend(self._resolve(node.field, value))
        return out

    def _enum(self, field: str, value: Value) -> str:
        text = str(value.value).lower()
        if text not in ENUMS[field]:
            raise PQLError(
                did_you_mean(
                    f"{field} has no value '{value.value}'",
                    str(value.value),
                    ENUMS[field],
                    f"expected one of: {', '.join(ENUMS[field])}.",
                ),
                line=value.pos.line,
                column=value.pos.column,
            )
        return text

    def _resolve(self, field: str, value: Value) -> list[uuid.UUID]:
        if value.kind == "function":  # currentUser(), checked by the parser
            return [self.current_account_id] if self.current_account_id else []
        name = str(value.value).strip()
        ids = list(db.session.scalars(_LOOKUPS[field](self.org_id, name)))
        if not ids:
            noun = {
                "status": "status",
                "assignee": "member",
                "project": "project",
                "cycle": "cycle",
                "module": "module",
            }[field]
            raise PQLError(
                f"no {noun} named '{value.value}' in this organization.",
                line=value.pos.line,
                column=value.pos.column,
            )
        return ids

    def _day(self, value: Value) -> date:
        if value.kind == "date":
            return value.value  # type: ignore[return-value]
        if value.kind == "reldate":
            return self.scope.today + timedelta(days=int(value.value))
        return self.scope.today

    # -- operators -------------------------------------------------------------------

    def _dates(self, node: Compare, column: Any, day: date) -> ColumnElement[bool]:
        if field_type(node.field) == "date":
            ops: dict[str, Callable[[], ColumnElement[bool]]] = {
                "=": lambda: column == day,
                "!=": lambda: column != day,
                "<": lambda: column < day,
                "<=": lambda: column <= day,
                ">": lambda: column > day,
                ">=": lambda: column >= day,
            }
            return ops[node.op]()
        # Timestamps compare with whole days in the org's time zone.
        lo = self.scope.day_start(day)
        hi = self.scope.day_start(day + timedelta(days=1))
        ops = {
            "=": lambda: and_(column >= lo, column < hi),
            "!=": lambda: or_(column < lo, column >= hi),
            "<": lambda: column < lo,
            "<=": lambda: column < hi,
            ">": lambda: column >= hi,
            ">=": lambda: column >= lo,
        }
        return ops[node.op]()

    def _text(self, node: Compare, column: Any) -> ColumnElement[bool]:
        texts = [str(v.value) for v in node.values]
        if node.op in ("~", "!~"):
            match = column.icontains(texts[0], autoescape=True)
            return match if node.op == "~" else not_(match)
        lowered = unicode_lower(column)
        if node.op in ("=", "in"):
            return lowered.in_([t.lower() for t in texts])
        return lowered.not_in([t.lower() for t in texts])

    def _search(self, node: Compare) -> ColumnElement[bool]:
        """``text ~ "login flow"``: the key, title, description or comments hold every
        word (as a prefix) and quoted phrase, through the search index."""
        value = node.values[0]
        terms = parse_terms(str(value.value))
        if not terms:
            raise PQLError(
                "text ~ needs at least one word to search for.",
                line=value.pos.line,
                column=value.pos.column,
            )
        match = matching_tasks(terms)
        return match if node.op == "~" else not_(match)


def _states(org_id: uuid.UUID, name: str):
    return (
        select(State.id)
        .join(Project, Project.id == State.project_id)
        .where(Project.org_id == org_id, equals_ignoring_case(State.name, name))
    )


def _people(org_id: uuid.UUID, name: str):
    return (
        select(Account.id)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == org_id,
            or_(
                equals_ignoring_case(Account.email, name), equals_ignoring_case(Account.name, name)
            ),
        )
    )


def _projects(org_id: uuid.UUID, name: str):
    return select(Project.id).where(
        Project.org_id == org_id,
        or_(
            equals_ignoring_case(Project.name, name),
            equals_ignoring_case(Project.identifier, name),
        ),
    )


def _grouping(model: Any) -> Callable[[uuid.UUID, str], Any]:
    def lookup(org_id: uuid.UUID, name: str):
        return (
            select(model.id)
            .join(Project, Project.id == model.project_id)
            .where(Project.org_id == org_id, equals_ignoring_case(model.name, name))
        )

    return lookup


_LOOKUPS = {
    "status": _states,
    "assignee": _people,
    "project": _projects,
    "cycle": _grouping(Cycle),
    "module": _grouping(Module),
}
