"""The analytics JSON API (DESIGN §3): read-only rollups over the tasks that count.

Bearer token or, for GET, the browser session (``api_access``). Every view: access,
then scope (a project of another org is a 404), then one service call.
"""

from __future__ import annotations

import uuid

from flask import Response, stream_with_context

from workspace.analytics import export, rollups, service
from workspace.analytics.schemas import (
    CustomOut,
    CustomQuery,
    FlowOut,
    ForecastOut,
    ForecastQuery,
    OverviewOut,
    PivotOut,
    PivotQuery,
    ScatterPoint,
    ScatterQuery,
    ScopeQuery,
    WorkloadRow,
)
from workspace.analytics.scope import Scope, make_scope
from workspace.api import api_access, operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access, require

bp = api_blueprint("analytics_api", __name__, "/api/v1/orgs/<uuid:org_id>/analytics")


def _scope(org_id: uuid.UUID, query: ScopeQuery) -> tuple[Access, Scope]:
    access = api_access(org_id)
    require(access, "analytics.read")
    return access, make_scope(access.org, query.project_id)


@bp.get("/overview")
@operation(
    "Totals, completion, overdue and breakdowns",
    tag="analytics",
    query=ScopeQuery,
    response=OverviewOut,
)
def overview(org_id: uuid.UUID, query: ScopeQuery):
    _, scope = _scope(org_id, query)
    return OverviewOut.model_validate(rollups.overview(scope))


@bp.get("/flow")
@operation(
    "Work in progress and age in status per open category",
    tag="analytics",
    query=ScopeQuery,
    response=FlowOut,
)
def flow(org_id: uuid.UUID, query: ScopeQuery):
    _, scope = _scope(org_id, query)
    return FlowOut.model_validate(rollups.flow(scope))


@bp.get("/workload")
@operation(
    "Open, in-progress and recently completed work per assignee",
    tag="analytics",
    query=ScopeQuery,
    response=list[WorkloadRow],
)
def workload(org_id: uuid.UUID, query: ScopeQuery):
    _, scope = _scope(org_id, query)
    return [WorkloadRow.model_validate(r) for r in rollups.workload(scope)]


@bp.get("/scatter")
@operation(
    "Scope and completion per cycle or module",
    tag="analytics",
    query=ScatterQuery,
    response=list[ScatterPoint],
)
def scatter(org_id: uuid.UUID, query: ScatterQuery):
    _, scope = _scope(org_id, query)
    return [ScatterPoint.model_validate(p) for p in rollups.scatter(scope, query.dimension)]


@bp.get("/forecast")
@operation(
    "Completed per week and next week's projection",
    tag="analytics",
    query=ForecastQuery,
    response=ForecastOut,
)
def forecast(org_id: uuid.UUID, query: ForecastQuery):
    _, scope = _scope(org_id, query)
    return ForecastOut.model_validate(rollups.forecast(scope, query.weeks))


@bp.get("/pivot")
@operation("Counts by two dimensions", tag="analytics", query=PivotQuery, response=PivotOut)
def pivot(org_id: uuid.UUID, query: PivotQuery):
    _, scope = _scope(org_id, query)
    return PivotOut.model_validate(rollups.pivot(scope, query.row, query.col))


@bp.get("/custom")
@operation(
    "A metric grouped by a dimension, largest first; optional PQL filter",
    tag="analytics",
    query=CustomQuery,
    response=CustomOut,
)
def custom(org_id: uuid.UUID, query: CustomQuery):
    access, scope = _scope(org_id, query)
    result = service.custom_chart(
        scope,
        access.account.id,
        metric=query.metric,
        dimension=query.dimension,
        status=query.status,
        priority=query.priority,
        pql=query.filter,
    )
    return CustomOut.model_validate(result)


@bp.get("/export.csv")
@operation(
    "The overview as long-format CSV (metric, dimension, value)",
    tag="analytics",
    query=ScopeQuery,
    media_type="text/csv",
)
def export_csv(org_id: uuid.UUID, query: ScopeQuery):
    _, scope = _scope(org_id, query)
    figures = rollups.overview(scope)
    name = f"analytics-{scope.org.slug}" + (f"-{scope.project.identifier}" if scope.project else "")
    return Response(
        stream_with_context(export.stream_csv(export.overview_rows(figures))),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name.lower()}.csv"'},
    )
