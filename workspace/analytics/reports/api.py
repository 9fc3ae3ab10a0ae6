"""The analytics JSON API (docs/api.md): read-only rollups over the tasks that count.

Bearer token or, for GET, the browser session. Every route declares
``analytics.read``; the view makes the scope (a project of another org is a 404),
then one service call.
"""

from __future__ import annotations

import uuid

from flask import Response, stream_with_context

from workspace.analytics import export, rollups
from workspace.analytics.flow_schemas import CumulativeFlowOut, CycleTimeOut, FlowTimeQuery
from workspace.analytics.forecast_schemas import ForecastDatesOut, ForecastDatesQuery
from workspace.analytics.reports import flow_service, forecast_page, service
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
    TimeSeriesOut,
    WorkloadRow,
)
from workspace.analytics.scope import Scope, make_scope
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access

bp = api_blueprint("analytics_api", __name__, "/api/v1/orgs/<uuid:org_id>/analytics")


def _scope(access: Access, query: ScopeQuery) -> Scope:
    return make_scope(access.org, query.project_id)


@bp.get("/overview")
@operation(
    "Totals, completion, overdue and breakdowns",
    tag="analytics",
    query=ScopeQuery,
    response=OverviewOut,
    action="analytics.read",
)
def overview(org_id: uuid.UUID, access: Access, query: ScopeQuery):
    scope = _scope(access, query)
    return OverviewOut.model_validate(rollups.overview(scope))


@bp.get("/flow")
@operation(
    "Work in progress and age in status per open category",
    tag="analytics",
    query=ScopeQuery,
    response=FlowOut,
    action="analytics.read",
)
def flow(org_id: uuid.UUID, access: Access, query: ScopeQuery):
    scope = _scope(access, query)
    return FlowOut.model_validate(rollups.flow(scope))


@bp.get("/workload")
@operation(
    "Open, in-progress and recently completed work per assignee",
    tag="analytics",
    query=ScopeQuery,
    response=list[WorkloadRow],
    action="analytics.read",
)
def workload(org_id: uuid.UUID, access: Access, query: ScopeQuery):
    scope = _scope(access, query)
    return [WorkloadRow.model_validate(r) for r in rollups.workload(scope)]


@bp.get("/scatter")
@operation(
    "Scope and completion per cycle or module",
    tag="analytics",
    query=ScatterQuery,
    response=list[ScatterPoint],
    action="analytics.read",
)
def scatter(org_id: uuid.UUID, access: Access, query: ScatterQuery):
    scope = _scope(access, query)
    return [ScatterPoint.model_validate(p) for p in rollups.scatter(scope, query.dimension)]


@bp.get("/forecast")
@operation(
    "Completed per week and next week's projection",
    tag="analytics",
    query=ForecastQuery,
    response=ForecastOut,
    action="analytics.read",
)
def forecast(org_id: uuid.UUID, access: Access, query: ForecastQuery):
    scope = _scope(access, query)
    return ForecastOut.model_validate(rollups.forecast(scope, query.weeks))


@bp.get("/forecast/dates")
@operation(
    "Monte Carlo dates for the open work: 50/85/95% confidence, and the next two weeks",
    tag="analytics",
    query=ForecastDatesQuery,
    response=ForecastDatesOut,
    action="analytics.read",
)
def forecast_dates(org_id: uuid.UUID, access: Access, query: ForecastDatesQuery):
    scope = _scope(access, query)
    result = forecast_page.forecast_dates(scope, access.account.id, query.weeks, query.filter)
    return ForecastDatesOut.model_validate(result)


@bp.get("/pivot")
@operation(
    "Counts by two dimensions",
    tag="analytics",
    query=PivotQuery,
    response=PivotOut,
    action="analytics.read",
)
def pivot(org_id: uuid.UUID, access: Access, query: PivotQuery):
    scope = _scope(access, query)
    return PivotOut.model_validate(rollups.pivot(scope, query.row, query.col))


@bp.get("/custom")
@operation(
    "A metric grouped by a dimension, largest first; optional PQL filter",
    tag="analytics",
    query=CustomQuery,
    response=CustomOut,
    action="analytics.read",
)
def custom(org_id: uuid.UUID, access: Access, query: CustomQuery):
    scope = _scope(access, query)
    result = service.custom_chart_for(scope, access.account.id, query)
    if "interval" in result:
        # A time dimension's series: the custom chart's points with their days.
        return TimeSeriesOut.model_validate(result)
    return CustomOut.model_validate(result)


@bp.get("/export.csv")
@operation(
    "The overview as long-format CSV (metric, dimension, value)",
    tag="analytics",
    query=ScopeQuery,
    media_type="text/csv",
    action="analytics.read",
)
def export_csv(org_id: uuid.UUID, access: Access, query: ScopeQuery):
    scope = _scope(access, query)
    figures = rollups.overview(scope)
    name = f"analytics-{scope.org.slug}" + (f"-{scope.project.identifier}" if scope.project else "")
    return Response(
        stream_with_context(export.stream_csv(export.overview_rows(figures))),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name.lower()}.csv"'},
    )


@bp.get("/cycle-time")
@operation(
    "Cycle time of each task completed in a date range, with its percentiles",
    tag="analytics",
    query=FlowTimeQuery,
    response=CycleTimeOut,
    action="analytics.read",
)
def cycle_time(org_id: uuid.UUID, access: Access, query: FlowTimeQuery):
    scope = make_scope(access.org, query.project_id)
    result = flow_service.cycle_time(
        scope, access.account.id, start=query.from_, end=query.to, pql=query.filter
    )
    return CycleTimeOut.model_validate(result)


@bp.get("/cumulative-flow")
@operation(
    "Tasks per status category at the end of each day of a date range",
    tag="analytics",
    query=FlowTimeQuery,
    response=CumulativeFlowOut,
    action="analytics.read",
)
def cumulative_flow(org_id: uuid.UUID, access: Access, query: FlowTimeQuery):
    scope = make_scope(access.org, query.project_id)
    result = flow_service.cumulative_flow(
        scope, access.account.id, start=query.from_, end=query.to, pql=query.filter
    )
    return CumulativeFlowOut.model_validate(result)
