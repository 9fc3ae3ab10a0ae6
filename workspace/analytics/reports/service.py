"""What the API and the pages both call: validated inputs in, rollup results out."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from workspace.analytics import rollups
from workspace.analytics.pql import compile_pql
from workspace.analytics.scope import Scope
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
) -> dict[str, Any]:
    """The custom chart with its optional filters: one status (by name), one
    priority, and a PQL filter; all must hold."""
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
    points = rollups.custom_chart(scope, metric, dimension, conditions)
    return {"metric": metric, "dimension": dimension, "points": points}
