"""A plain-Python evaluator of parsed PQL over the reference rows: what each query
means, stated without SQL, to hold the compiler to."""

from __future__ import annotations

from datetime import date, timedelta

from tests.analytics.reference import Data, is_overdue
from workspace.analytics.pql.parser import And, Call, Compare, Empty, Not, Or, Value

NULLABLE = {
    "assignee": "assignee_id",
    "cycle": "cycle_id",
    "module": "module_id",
    "dueDate": "due_date",
    "completedAt": "completed_at",
}


class Evaluator:
    def __init__(self, data: Data, today: date, current_account_id) -> None:
        self.d, self.today, self.me = data, today, current_account_id

    def __call__(self, node, t: dict) -> bool:
        if isinstance(node, And):
            return all(self(n, t) for n in node.items)
        if isinstance(node, Or):
            return any(self(n, t) for n in node.items)
        if isinstance(node, Not):
            return not self(node.expr, t)
        if isinstance(node, Call):
            return (
                is_overdue(t, self.today) if node.name == "isOverdue" else t["assignee_id"] is None
            )
        if isinstance(node, Empty):
            empty = node.field in NULLABLE and t[NULLABLE[node.field]] is None
            return not empty if node.negated else empty
        return self.compare(node, t)

    def day(self, v: Value) -> date:
        if v.kind == "date":
            return v.value
        return self.today + timedelta(days=v.value) if v.kind == "reldate" else self.today

    def compare(self, node: Compare, t: dict) -> bool:
        f, op = node.field, node.op
        if f in NULLABLE and t[NULLABLE[f]] is None:
            return False
        if f in ("dueDate", "createdAt", "completedAt"):
            if f == "dueDate":
                mine = t["due_date"]
            else:
                column = "created_at" if f == "createdAt" else "completed_at"
                mine = t[column].astimezone(self.d.tz).date()
            other = self.day(node.values[0])
            return {
                "=": mine == other,
                "!=": mine != other,
                "<": mine < other,
                "<=": mine <= other,
                ">": mine > other,
                ">=": mine >= other,
            }[op]
        if f == "title":
            title = t["title"].lower()
            wanted = [str(v.value).lower() for v in node.values]
            if op == "~":
                return wanted[0] in title
            if op == "!~":
                return wanted[0] not in title
            hit = title in wanted
            return hit if op in ("=", "in") else not hit
        hit = any(self.matches(f, v, t) for v in node.values)
        return hit if op in ("=", "in") else not hit

    def matches(self, f: str, v: Value, t: dict) -> bool:
        if v.kind == "function":  # currentUser()
            return t["assignee_id"] == self.me
        text = str(v.value).strip().lower()
        if f == "status":
            return self.d.states[t["state_id"]].name.lower() == text
        if f == "statusCategory":
            return t["state_category"] == text
        if f in ("priority", "kind"):
            return t[f] == text
        if f == "assignee":
            a = self.d.accounts[t["assignee_id"]]
            return text in (a.email.lower(), a.name.lower())
        if f == "project":
            p = self.d.projects[t["project_id"]]
            return text in (p.name.lower(), p.identifier.lower())
        group = self.d.cycles[t["cycle_id"]] if f == "cycle" else self.d.modules[t["module_id"]]
        return group.name.lower() == text
