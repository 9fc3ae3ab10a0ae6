"""What the API and the pages both call: validated inputs in, rollup results out."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy import select

from workspace.analytics import drill, rollups, time_series
from workspace.analytics.pql import compile_pql
from workspace.analytics.schemas import CustomQuery
from workspace.analytics.scope import Scope
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.core.models import Project, State, Task
from workspace.dbfunctions import equals_ignoring_case
from workspace.errors import ServiceError
from workspace.extensions import db


def custom_chart(
    scope: Scope,
    account_id: uuid.UUID | None,
    *,
    metric: str,
    dimension: str,
    status: str | None = None,
    priority: str | None = None,
    pql: str | None = None,
    interval: str = "week",
    first: date | None = None,
    last: date | None = None,
    preset: str | None = None,
    split: str | None = None,
) -> dict[str, Any]:
    """The custom chart with its optional filters: one status (by name), one
    priority, and a PQL filter; all must hold. A time dimension (created, completed)
    gives a series per ``interval`` over a date range (docs/analytics.md#time),
    split by ``split`` (one of the five) when given."""
    conditions = []
    if status:
        states = (
            select(State.id)
            .join(Project, Project.id == State.project_id)
            .where(
                Project.org_id == scope.org_id,
                equals_ignoring_case(State.name, status),
            )
        )
        if db.session.scalar(states.limit(1)) is None:
            raise ServiceError(f"No status named '{status}' in this organization.", field="status")
        conditions.append(Task.state_id.in_(states))
    if priority:
        conditions.append(Task.priority == priority)
    if pql and pql.strip():
        conditions.append(compile_pql(pql, scope.org_id, account_id, scope=scope))
    if dimension in TIME_DIMENSIONS:
        result = time_series.series(
            scope,
            metric,
            dimension,
            interval,
            conditions,
            first=first,
            last=last,
            preset=preset,
            split=split,
        )
        layers = [pql, drill.status_clause(status) if status else None]
        layers.append(drill.priority_clause(priority) if priority else None)
        time_series.add_links(result, scope, metric, layers)
        return result
    if split:
        raise ServiceError(
            "A series splits only a time dimension (created, completed).", field="split"
        )
    points = rollups.custom_chart(scope, metric, dimension, conditions)
    return {"metric": metric, "dimension": dimension, "points": points}


def custom_chart_for(
    scope: Scope, account_id: uuid.UUID | None, query: CustomQuery, **overrides: Any
) -> dict[str, Any]:
    """:func:`custom_chart` with every field of a ``CustomQuery`` (the API's, the
    page's, an asked chart's), ``overrides`` replacing some (an asked chart's days)."""
    fields = {
        "metric": query.metric,
        "dimension": query.dimension,
        "status": query.status,
        "priority": query.priority,
        "pql": query.filter,
        "interval": query.interval,
        "first": query.from_,
        "last": query.to,
        "preset": query.range,
        "split": query.split,
    }
    return custom_chart(scope, account_id, **{**fields, **overrides})
