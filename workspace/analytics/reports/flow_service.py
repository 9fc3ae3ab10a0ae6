"""Flow over time for the API and the page: the PQL filter compiled for the person
asking, then the history reads of workspace/analytics/flow_time.py."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement

from workspace.analytics import flow_time
from workspace.analytics.pql import compile_pql
from workspace.analytics.scope import Scope


def _where(
    scope: Scope, account_id: uuid.UUID | None, pql: str | None
) -> list[ColumnElement[bool]]:
    if pql and pql.strip():
        return [compile_pql(pql, scope.org_id, account_id, scope=scope)]
    return []


def cycle_time(
    scope: Scope,
    account_id: uuid.UUID | None,
    *,
    start: date | None = None,
    end: date | None = None,
    pql: str | None = None,
) -> dict[str, Any]:
    where = _where(scope, account_id, pql)
    return flow_time.cycle_time(scope, start=start, end=end, where=where)


def cumulative_flow(
    scope: Scope,
    account_id: uuid.UUID | None,
    *,
    start: date | None = None,
    end: date | None = None,
    pql: str | None = None,
) -> dict[str, Any]:
    where = _where(scope, account_id, pql)
    return flow_time.cumulative_flow(scope, start=start, end=end, where=where)
