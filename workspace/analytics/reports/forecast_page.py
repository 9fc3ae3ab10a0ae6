"""The Forecast tab: the spec's weekly forecast and, beside it, the Monte Carlo dates
for the open work (docs/analytics.md#forecast-dates)."""

from __future__ import annotations

import uuid
from typing import Any

from workspace.analytics import charts, montecarlo, rollups
from workspace.analytics.drill import OPEN_WORK, expression, href, user_filter
from workspace.analytics.forecast_schemas import ForecastPageQuery
from workspace.analytics.pql import compile_pql
from workspace.analytics.scope import Scope


def build(scope: Scope, query: ForecastPageQuery, account: uuid.UUID) -> dict[str, Any]:
    result = rollups.forecast(scope, query.weeks)
    dates = forecast_dates(scope, account, query.sample_weeks, query.filter)
    open_pql = expression(user_filter(query.filter), OPEN_WORK)
    return {
        "result": result,
        "dates": dates,
        "open_href": href(scope.org.slug, scope.project_id, open_pql),
        "empty": not any(p["completed"] for p in result["series"]),
        "figures": {"forecast": charts.to_json(charts.forecast_figure(result))},
    }


def forecast_dates(
    scope: Scope, account: uuid.UUID | None, weeks: int, pql: str | None
) -> dict[str, Any]:
    """The Monte Carlo dates for the open work of the scope, or of the tasks the PQL
    ``pql`` selects (a syntax or name error is a 422 saying where)."""
    conditions = []
    if pql and pql.strip():
        conditions.append(compile_pql(pql, scope.org_id, account, scope=scope))
    return montecarlo.forecast_dates(scope, weeks, conditions, pql)
