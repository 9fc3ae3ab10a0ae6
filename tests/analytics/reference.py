"""Plain-Python analytics: every rollup recomputed from all rows, one by one, with no
SQL beyond "give me every row". The API's numbers must equal these."""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from workspace.core.models import (
    Account,
    Cycle,
    Module,
    Org,
    OrgMember,
    Project,
    State,
    Task,
    TaskActivity,
)
from workspace.extensions import db

CATEGORIES = ["backlog", "unstarted", "started", "completed", "cancelled"]
PRIORITIES = ["urgent", "high", "medium", "low", "none"]
KINDS = ["task", "bug", "feature", "epic"]


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass
class Data:
    org: Any
    tasks: list[dict]
    states: dict
    accounts: dict
    projects: dict
    cycles: dict
    modules: dict
    activity: list[dict]
    members: set

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.org.timezone or "UTC")

    def today(self, now: datetime) -> date:
        return now.astimezone(self.tz).date()

    def day_start(self, day: date) -> datetime:
        return datetime.combine(day, time(), self.tz).astimezone(UTC)

    def counted(self, project_id: uuid.UUID | None = None) -> list[dict]:
        return [
            t
            for t in self.tasks
            if t["state_category"] != "triage"
            and not t["is_draft"]
            and t["archived_at"] is None
            and t["deleted_at"] is None
            and (project_id is None or t["project_id"] == project_id)
        ]


def load(org_id: uuid.UUID) -> Data:
    """Every row of the org, as dicts (an app context must be active)."""
    org = db.session.get(Org, org_id)
    tasks = [
        dict(
            id=t.id,
            project_id=t.project_id,
            state_id=t.state_id,
            state_category=t.state_category,
            priority=t.priority,
            kind=t.kind,
            assignee_id=t.assignee_id,
            cycle_id=t.cycle_id,
            module_id=t.module_id,
            title=t.title,
            due_date=t.due_date,
            is_draft=t.is_draft,
            created_at=_utc(t.created_at),
            completed_at=_utc(t.completed_at),
            archived_at=t.archived_at,
            deleted_at=t.deleted_at,
        )
        for t in db.session.scalars(select(Task).where(Task.org_id == org_id))
    ]
    projects = {
        p.id: p for p in db.session.scalars(select(Project).where(Project.org_id == org_id))
    }
    states = {
        s.id: s for s in db.session.scalars(select(State).where(State.project_id.in_(projects)))
    }
    cycles = {
        c.id: c for c in db.session.scalars(select(Cycle).where(Cycle.project_id.in_(projects)))
    }
    modules = {
        m.id: m for m in db.session.scalars(select(Module).where(Module.project_id.in_(projects)))
    }
    accounts = {a.id: a for a in db.session.scalars(select(Account))}
    members = set(
        db.session.scalars(select(OrgMember.account_id).where(OrgMember.org_id == org_id))
    )
    activity = [
        dict(
            task_id=a.task_id,
            field=a.field,
            old_category=a.old_category,
            new_category=a.new_category,
            created_at=_utc(a.created_at),
        )
        for a in db.session.scalars(select(TaskActivity).where(TaskActivity.org_id == org_id))
    ]
    return Data(org, tasks, states, accounts, projects, cycles, modules, activity, members)


def rate(done: int, total: int, places: int) -> float:
    return round(done / total, places) if total else 0.0


def is_overdue(t: dict, today: date) -> bool:
    return (
        t["due_date"] is not None
        and t["due_date"] < today
        and t["state_category"] not in ("completed", "cancelled")
    )


def overview(d: Data, now: datetime, project_id=None) -> dict:
    rows = d.counted(project_id)
    done = sum(t["state_category"] == "completed" for t in rows)
    today = d.today(now)
    return {
        "total": len(rows),
        "completed": done,
        "completion_rate": rate(done, len(rows), 4),
        "overdue": sum(is_overdue(t, today) for t in rows),
        "by_category": {c: sum(t["state_category"] == c for t in rows) for c in CATEGORIES},
        "by_priority": {p: sum(t["priority"] == p for t in rows) for p in PRIORITIES},
        "by_kind": {k: sum(t["kind"] == k for t in rows) for k in KINDS},
    }


def flow(d: Data, now: datetime, project_id=None) -> dict:
    last: dict = {}
    for a in d.activity:
        if a["field"] == "state":
            last[a["task_id"]] = max(last.get(a["task_id"], a["created_at"]), a["created_at"])
    out = []
    for cat in ("backlog", "unstarted", "started"):
        rows = [t for t in d.counted(project_id) if t["state_category"] == cat]
        ages = [(now - last.get(t["id"], t["created_at"])).total_seconds() / 86400 for t in rows]
        out.append(
            {
                "category": cat,
                "wip": len(rows),
                "avg_age_days": round(sum(ages) / len(ages), 2) if ages else 0.0,
            }
        )
    return {"categories": out, "total_wip": sum(c["wip"] for c in out)}


def workload(d: Data, now: datetime, project_id=None) -> list[dict]:
    since = now - timedelta(days=30)
    per: dict = defaultdict(lambda: {"open": 0, "in_progress": 0, "completed_30d": 0})
    for t in d.counted(project_id):
        if t["assignee_id"] is None:
            continue
        row = per[t["assignee_id"]]
        row["open"] += t["state_category"] != "completed"
        row["in_progress"] += t["state_category"] == "started"
        row["completed_30d"] += t["state_category"] == "completed" and t["completed_at"] >= since
    rows = []
    for account_id, counts in per.items():
        a = d.accounts[account_id]
        rows.append(
            {
                "assignee_id": str(account_id),
                "name": a.name,
                "email": a.email,
                "kind": a.kind,
                **counts,
            }
        )
    return sorted(
        rows,
        key=lambda r: (-r["open"], -r["in_progress"], -r["completed_30d"], r["name"], r["email"]),
    )


def scatter(d: Data, dimension: str, project_id=None) -> dict:
    """{group id: (scope, completed, rate)} for every cycle or module in scope."""
    groups = d.cycles if dimension == "cycle" else d.modules
    key = "cycle_id" if dimension == "cycle" else "module_id"
    out = {}
    for gid, group in groups.items():
        if project_id is not None and group.project_id != project_id:
            continue
        rows = [t for t in d.counted(project_id) if t[key] == gid]
        done = sum(t["state_category"] == "completed" for t in rows)
        out[str(gid)] = (len(rows), done, rate(done, len(rows), 3))
    return out


def forecast(d: Data, now: datetime, weeks: int, project_id=None) -> dict:
    today = d.today(now)
    monday = today - timedelta(days=today.weekday())
    starts = [monday - timedelta(weeks=weeks - i) for i in range(weeks + 1)]
    bounds = [d.day_start(s) for s in starts]
    counted = {t["id"] for t in d.counted(project_id)}
    series = []
    for i in range(weeks):
        n = sum(
            1
            for a in d.activity
            if a["field"] == "state"
            and a["new_category"] == "completed"
            and a["old_category"] != "completed"
            and a["task_id"] in counted
            and bounds[i] <= a["created_at"] < bounds[i + 1]
        )
        series.append({"week_start": starts[i].isoformat(), "completed": n})
    values = [s["completed"] for s in series]
    basis = values[-4:]
    return {
        "weeks": weeks,
        "series": series,
        "average_per_week": round(sum(values) / weeks, 2),
        "projected_next_week": round(sum(basis) / len(basis), 2),
        "next_week_start": monday.isoformat(),
    }


def dimension_key(d: Data, t: dict, dimension: str) -> str:
    if dimension == "status":
        return d.states[t["state_id"]].name
    if dimension == "assignee":
        return str(t["assignee_id"]) if t["assignee_id"] else "unassigned"
    if dimension == "project":
        return str(t["project_id"])
    return t[dimension]


def pivot(d: Data, row: str, col: str, project_id=None) -> dict:
    cells = Counter(
        (dimension_key(d, t, row), dimension_key(d, t, col)) for t in d.counted(project_id)
    )
    return {(r, c): n for (r, c), n in cells.items()}


def label(d: Data, dimension: str, key: str) -> str:
    if key == "unassigned":
        return "Unassigned"
    if dimension == "assignee":
        return d.accounts[uuid.UUID(key)].name
    if dimension == "project":
        return d.projects[uuid.UUID(key)].name
    return key


def custom(d: Data, metric: str, dimension: str, project_id=None, keep=None) -> list[dict]:
    counts: Counter = Counter()
    for t in d.counted(project_id):
        if metric == "done" and t["state_category"] != "completed":
            continue
        if metric == "open" and t["state_category"] == "completed":
            continue
        if keep is not None and not keep(t):
            continue
        counts[dimension_key(d, t, dimension)] += 1
    points = [
        {
            "key": label(d, dimension, k),
            "value": n,
            "id": k if dimension in ("assignee", "project") and k != "unassigned" else None,
        }
        for k, n in counts.items()
    ]
    return sorted(points, key=lambda p: (-p["value"], p["key"].lower(), p["id"] or ""))
