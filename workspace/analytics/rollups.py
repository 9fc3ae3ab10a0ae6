"""The rollups of docs/analytics.md, each a single pass in SQL over "the tasks that count".

Every figure is a ``count(*) FILTER (WHERE ...)`` column of one statement (SQLAlchemy's
``func.count().filter(...)``, which SQLite 3.30+ and PostgreSQL both render), so a
whole-org overview reads the covering index once instead of once per figure. Python
only shapes the few result rows. Definitions live in docs/analytics.md.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, func, literal_column, or_, select

from workspace.analytics import dimensions, task_counts
from workspace.analytics.rollup_rewrite import read_counts
from workspace.analytics.scope import Scope, grouped, metric_condition, tune_for_analytics
from workspace.core.models import (
    Account,
    Cycle,
    Module,
    Priority,
    Project,
    State,
    StateCategory,
    Task,
    TaskActivity,
    TaskKind,
)
from workspace.core.models.projects import COUNTED_CATEGORIES, OPEN_CATEGORIES
from workspace.extensions import db

COMPLETED = StateCategory.COMPLETED.value
CATEGORIES = [c.value for c in COUNTED_CATEGORIES]
PRIORITIES = [p.value for p in Priority]
KINDS = [k.value for k in TaskKind]
WORKLOAD_WINDOW = timedelta(days=30)
PROJECTION_BASIS = 4


def rate(done: int, total: int, places: int) -> float:
    """Completion rate; 0 when nothing is in scope."""
    return round(done / total, places) if total else 0.0


def overview(scope: Scope) -> dict[str, Any]:
    cat = Task.state_category
    columns = [
        func.count().label("total"),
        func.count().filter(cat == COMPLETED).label("completed"),
        *(func.count().filter(cat == c).label(f"cat_{c}") for c in CATEGORIES),
        *(func.count().filter(Task.priority == p).label(f"prio_{p}") for p in PRIORITIES),
        *(func.count().filter(Task.kind == k).label(f"kind_{k}") for k in KINDS),
    ]
    # Both parts read maintained rollups: the counts by category, priority and kind,
    # and the open tasks by due date (docs/analytics.md#maintained-rollups).
    row = read_counts(select(*columns).where(*scope.where())).one()._mapping
    return {
        "total": row["total"],
        "completed": row["completed"],
        "completion_rate": rate(row["completed"], row["total"], 4),
        "overdue": task_counts.overdue(scope.org_id, scope.project_id, scope.today),
        "by_category": {c: row[f"cat_{c}"] for c in CATEGORIES},
        "by_priority": {p: row[f"prio_{p}"] for p in PRIORITIES},
        "by_kind": {k: row[f"kind_{k}"] for k in KINDS},
    }


def flow(scope: Scope) -> dict[str, Any]:
    """WIP and average age in status per open-work category; the age runs from the
    task's latest status change in its history, else from its creation."""
    # ``state_entered_at`` is that moment, kept with every state change, and the
    # maintained rollup keeps its sum per bucket: no task or history row is read.
    tune_for_analytics()
    open_values = [c.value for c in OPEN_CATEGORIES]
    found = task_counts.state_entry_averages(scope.org_id, scope.project_id, open_values)
    now_epoch = scope.now.timestamp()
    categories = []
    for cat in open_values:
        count, avg = found.get(cat, (0, None))
        age = round((now_epoch - float(avg)) / 86400, 2) if count else 0.0
        categories.append({"category": cat, "wip": count, "avg_age_days": max(age, 0.0)})
    return {"categories": categories, "total_wip": sum(c["wip"] for c in categories)}


def workload(scope: Scope) -> list[dict[str, Any]]:
    """Per assignee (people and agents alike): open, in progress, completed in the
    last 30 days; highest open first. Unassigned tasks are left out."""
    cat = Task.state_category
    assignee = grouped(Task.assignee_id)
    # Open and in progress come from the maintained counts (every assignee with a
    # task that counts, so people with only older completions still get a row) ...
    current = read_counts(
        select(
            assignee,
            func.count().filter(cat != COMPLETED),
            func.count().filter(cat == StateCategory.STARTED.value),
        )
        .where(*scope.where(), assignee.is_not(None))
        .group_by(assignee)
    ).all()
    # ... and the last 30 days' completions, to the second. Whole UTC days come from
    # the daily rollup; the part-day at the window's start (or, for one project, the
    # whole window) is a range read of the partial index over completed tasks
    # (ix_tasks_completed; its predicate stated literally so both planners match it).
    since = scope.now - WORKLOAD_WINDOW
    recent: Counter[Any] = Counter()
    window = [Task.completed_at >= since]
    if scope.project_id is None:
        first_day = since.astimezone(UTC).date() + timedelta(days=1)
        recent.update(task_counts.completed_by_assignee(scope.org.id, first_day))
        window.append(Task.completed_at < datetime.combine(first_day, time(), UTC))
    from_index = db.session.execute(
        select(assignee, func.count())
        .where(
            *scope.where(),
            cat == literal_column(f"'{COMPLETED}'"),
            *window,
            assignee.is_not(None),
        )
        .group_by(assignee)
    )
    recent.update(dict(from_index.tuples().all()))
    counts = {key: (open_, started, recent.get(key, 0)) for key, open_, started in current}
    people = db.session.execute(
        select(Account.id, Account.name, Account.email, Account.kind)
        .where(Account.id.in_(list(counts)))
        .order_by(Account.name, Account.email)
    ).all()
    # Highest figures first; ties keep the database's order of name and email.
    ranked = sorted(
        enumerate(people),
        key=lambda item: (*(-n for n in counts[item[1].id]), item[0]),
    )
    return [
        {
            "assignee_id": person.id,
            "name": person.name,
            "email": person.email,
            "kind": person.kind,
            "open": counts[person.id][0],
            "in_progress": counts[person.id][1],
            "completed_30d": counts[person.id][2],
        }
        for _, person in ranked
    ]


def scatter(scope: Scope, dimension: str) -> list[dict[str, Any]]:
    """Per cycle or module of the scope's projects: scope, completed, rate (3 places).
    Cycles or modules without tasks are listed with zeros."""
    model, column = (Cycle, Task.cycle_id) if dimension == "cycle" else (Module, Task.module_id)
    counts = dict(
        (key, (total, done))
        for key, total, done in read_counts(
            select(
                grouped(column), func.count(), func.count().filter(Task.state_category == COMPLETED)
            )
            .where(*scope.where(), grouped(column).is_not(None))
            .group_by(grouped(column))
        ).all()
    )
    groups = (
        select(model.id, model.name, Project.id, Project.name)
        .join(Project, Project.id == model.project_id)
        .where(Project.org_id == scope.org_id)
    )
    if scope.project_id is not None:
        groups = groups.where(Project.id == scope.project_id)
    order = [Project.name, model.name]
    if model is Cycle:
        order = [Project.name, Cycle.start_date.is_(None), Cycle.start_date, Cycle.name]
    points = []
    for key, name, project_id, project_name in db.session.execute(groups.order_by(*order)):
        total, done = counts.get(key, (0, 0))
        points.append(
            {
                "id": key,
                "name": name,
                "project_id": project_id,
                "project_name": project_name,
                "scope": total,
                "completed": done,
                "completion_rate": rate(done, total, 3),
            }
        )
    return points


def week_start(day: date) -> date:
    """The Monday of ``day``'s week."""
    return day - timedelta(days=day.weekday())


def forecast(scope: Scope, weeks: int) -> dict[str, Any]:
    """Completed per week over the ``weeks`` full weeks (Monday to Sunday, org time
    zone) before the current week, counted from status changes into the completed
    category; the projection for the current week is the mean of the last four."""
    current = week_start(scope.today)
    starts = [current - timedelta(weeks=weeks - i) for i in range(weeks + 1)]
    bounds = [scope.day_start(d) for d in starts]
    # The hourly rollup answers from hour to hour; a zone a quarter or half hour off
    # UTC (India, Nepal, parts of Australia) starts its weeks inside an hour, whose
    # first part the history answers: week = its hours - [hour, start) + [hour, end).
    hours = [b.replace(minute=0, second=0, microsecond=0) for b in bounds]
    tune_for_analytics()
    by_hours = task_counts.completions(scope.org_id, scope.project_id, hours)
    edges = completions_from_history(
        scope, [(h, b) for h, b in zip(hours, bounds, strict=True) if h != b]
    )
    before = [edges.get((h, b), 0) for h, b in zip(hours, bounds, strict=True)]
    row = [by_hours[i] - before[i] + before[i + 1] for i in range(weeks)]
    series = [{"week_start": starts[i], "completed": row[i]} for i in range(weeks)]
    values = [p["completed"] for p in series]
    basis = values[-PROJECTION_BASIS:]
    return {
        "weeks": weeks,
        "series": series,
        "average_per_week": round(sum(values) / weeks, 2),
        "projected_next_week": round(sum(basis) / len(basis), 2),
        "next_week_start": current,
    }


def completions_from_history(
    scope: Scope, intervals: list[tuple[datetime, datetime]]
) -> dict[tuple[datetime, datetime], int]:
    """Completions of the tasks that count in each ``[start, end)``, read from the
    status history (a range read of its state-change index per interval)."""
    if not intervals:
        return {}
    at = TaskActivity.created_at
    columns = [func.count().filter(and_(at >= lo, at < hi)) for lo, hi in intervals]
    query = (
        select(*columns)
        .select_from(TaskActivity)
        .join(Task, Task.id == TaskActivity.task_id)
        .where(
            TaskActivity.org_id == scope.org_id,
            *task_counts.completion_rows(),
            or_(*(and_(at >= lo, at < hi) for lo, hi in intervals)),
            *scope.where(),
        )
    )
    return dict(zip(intervals, db.session.execute(query).one(), strict=True))


def pivot(scope: Scope, row: str, col: str) -> dict[str, Any]:
    """Counts for every populated (row, column) cell of two dimensions."""

    # Status groups by the state's id and names the few states afterwards, as the
    # dashboard does, instead of joining every counted row to its state.
    def group(dimension: str) -> Any:
        return Task.state_id if dimension == "status" else dimensions.column(dimension)

    row_col, col_col = group(row), group(col)
    query = select(row_col, col_col, func.count()).select_from(Task).where(*scope.where())
    result = read_counts(query.group_by(row_col, col_col)).all()
    names: dict[Any, str] = {}
    if dimensions.needs_states(row, col):
        ids = {r for r, _, _ in result} if row == "status" else set()
        ids |= {c for _, c, _ in result} if col == "status" else set()
        states = select(State.id, State.name).where(State.id.in_(ids))
        names = dict(db.session.execute(states).all())

    def key(dimension: str, value: Any) -> str:
        return names[value] if dimension == "status" else dimensions.key_of(value)

    merged: dict[tuple[str, str], int] = {}
    for r, c, n in result:
        cell = (key(row, r), key(col, c))
        merged[cell] = merged.get(cell, 0) + n
    cells = [(r, c, n) for (r, c), n in merged.items()]
    row_labels = dimensions.labels(row, {r for r, _, _ in cells})
    col_labels = dimensions.labels(col, {c for _, c, _ in cells})
    return {
        "row": row,
        "col": col,
        "rows": [
            {"key": k, "label": row_labels[k]}
            for k in dimensions.ordered(row, row_labels, row_labels)
        ],
        "cols": [
            {"key": k, "label": col_labels[k]}
            for k in dimensions.ordered(col, col_labels, col_labels)
        ],
        "cells": [
            {"row": r, "col": c, "count": n}
            for r, c, n in sorted(cells, key=lambda x: (x[0], x[1]))
        ],
    }


def custom_chart(
    scope: Scope, metric: str, dimension: str, conditions: list[ColumnElement[bool]] = ()
) -> list[dict[str, Any]]:
    """Points (key, value) of ``metric`` grouped by ``dimension``, largest first.

    ``conditions`` are extra filters (status, priority, PQL) built by the caller;
    groups where the metric counts nothing do not appear.
    """
    group = dimensions.column(dimension)
    where = [*scope.where(), *conditions]
    extra = metric_condition(metric)
    if extra is not None:
        where.append(extra)
    query = select(group, func.count()).select_from(Task).where(*where)
    if dimensions.needs_states(dimension):
        query = query.join(State, State.id == Task.state_id)
    rows = read_counts(query.group_by(group)).all()
    counts = [(dimensions.key_of(k), n) for k, n in rows]
    names = dimensions.labels(dimension, [k for k, _ in counts])
    has_id = dimension in ("assignee", "project")
    points = [
        {"key": names[k], "value": n, "id": k if has_id and k != dimensions.UNASSIGNED else None}
        for k, n in counts
    ]
    return sorted(points, key=lambda p: (-p["value"], p["key"].lower(), p["id"] or ""))
