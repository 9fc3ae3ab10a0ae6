"""The analytics pages: one page with a tab per rollup.

Each tab is a partial: the full page includes it, and an HTMX request for the same
URL gets it alone (contact-app style). Links and forms are plain GETs, so every tab
works without JavaScript; charts need JS (Plotly) and the tables beside them do not.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, render_template, request
from pydantic import BaseModel, ValidationError

from workspace.analytics import charts, dimensions, drill, palette, rollups, time_charts
from workspace.analytics.flow_schemas import FlowTimeQuery
from workspace.analytics.forecast_schemas import ForecastPageQuery
from workspace.analytics.reports import flow_page, forecast_page, links, service
from workspace.analytics.schemas import (
    CustomQuery,
    PivotQuery,
    ScatterQuery,
    ScopeQuery,
)
from workspace.analytics.scope import Scope, make_scope
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.auth.guards import page
from workspace.core import projects
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import htmx
from workspace.security.permissions import Access

bp = Blueprint("analytics_pages", __name__)

TABS = {
    "overview": ("Overview", ScopeQuery),
    "flow": ("Flow", ScopeQuery),
    "flow-time": ("Flow over time", FlowTimeQuery),
    "workload": ("Workload", ScopeQuery),
    "scatter": ("Scatter", ScatterQuery),
    "forecast": ("Forecast", ForecastPageQuery),
    "pivot": ("Pivot", PivotQuery),
    "custom": ("Custom", CustomQuery),
}


def _page_context(access: Access, tab: str) -> dict[str, Any]:
    """The page around the tab: its inputs from the query string (``query``) and its
    ``scope``. A page never fails on a hand-edited URL: a bad value is its default
    and a project of no one's the whole org, with a warning saying so."""
    if tab not in TABS:
        raise NotFoundError("No such analytics tab.")
    query, warning = _lenient(TABS[tab][1])
    try:
        scope = make_scope(access.org, query.project_id)
    except NotFoundError as exc:
        scope, warning = make_scope(access.org), exc.message + " Showing the whole organization."
        query.project_id = None
    return {
        "tab": tab,
        "tabs": {k: v[0] for k, v in TABS.items()},
        "query": query,
        "warning": warning,
        "project_list": projects.list_projects(access.org.id),
        "scope": scope,
        "error": None,
        "nav_active": "analytics",
    }


def _lenient(model: type[BaseModel]) -> tuple[Any, str | None]:
    """``model`` from the query string; on a bad value, the defaults and a message
    saying what was wrong."""
    # A field may be read under its alias (``from``, a Python keyword).
    names = {f.alias or n for n, f in model.model_fields.items()}
    data = {k: v for k, v in request.args.items() if k in names and v != ""}
    try:
        return model.model_validate(data), None
    except ValidationError as exc:
        bad = sorted({str(e["loc"][0]) for e in exc.errors(include_url=False) if e["loc"]})
        kept = {k: v for k, v in data.items() if k not in bad}
        try:
            query = model.model_validate(kept)
        except ValidationError:
            query = model()
        return query, f"Ignored an invalid value for {', '.join(bad)}; showing the default."


def _tab(context: dict[str, Any]):
    """The page, or for HTMX the tab body alone."""
    return render_template("analytics/_body.html" if htmx else "analytics/index.html", **context)


def _cannot_build(access: Access, tab: str, error: ServiceError):
    """A filter or status the tab cannot use: the tab says what to fix."""
    return _tab({**_page_context(access, tab), "error": error})


@bp.get("/o/<org>/analytics", defaults={"tab": "overview"})
@bp.get("/o/<org>/analytics/<tab>")
@page(action="analytics.read", invalid=_cannot_build)
def index(tab: str, access: Access):
    """Analytics for the org or one project; HTMX requests get just the tab body."""
    context = _page_context(access, tab)
    built = _TAB_BUILDERS[tab](context["scope"], context["query"], access.account.id)
    return _tab({**context, **built})


def _overview(scope: Scope, query: ScopeQuery, _account: uuid.UUID) -> dict[str, Any]:
    result = rollups.overview(scope)
    hrefs = links.overview_links(scope, result)
    return {
        "result": result,
        "empty": result["total"] == 0,
        "links": hrefs,
        "chart_links": {
            name: links.key_map(hrefs[name]) for name in ("category", "priority", "kind")
        },
        "figures": {
            "category": charts.to_json(
                charts.breakdown_bar(
                    result["by_category"], dimension="category", hrefs=_present(hrefs["category"])
                )
            ),
            "priority": charts.to_json(
                charts.donut(
                    result["by_priority"], dimension="priority", hrefs=_present(hrefs["priority"])
                )
            ),
            "kind": charts.to_json(
                charts.breakdown_bar(
                    result["by_kind"], dimension="kind", hrefs=_present(hrefs["kind"])
                )
            ),
        },
    }


def _present(links: dict[str, str | None]) -> dict[str, str]:
    return {k: v for k, v in links.items() if v}


def _flow(scope: Scope, query: ScopeQuery, _account: uuid.UUID) -> dict[str, Any]:
    result = rollups.flow(scope)
    links.flow_links(scope, result)
    return {
        "result": result,
        "empty": result["total_wip"] == 0,
        "chart_links": {
            "flow": links.key_map({c["category"]: c["href"] for c in result["categories"]})
        },
        "figures": {"flow": charts.to_json(charts.flow_figure(result))},
    }


def _workload(scope: Scope, query: ScopeQuery, _account: uuid.UUID) -> dict[str, Any]:
    rows = rollups.workload(scope)
    hrefs = links.workload_links(scope, rows)
    for row in rows:  # the chart's bars: a person's open work, and the part in progress
        row["href"] = hrefs[str(row["assignee_id"])]["open"]
        row["href_in_progress"] = hrefs[str(row["assignee_id"])]["in_progress"]
    return {
        "result": rows,
        "empty": not rows,
        "links": hrefs,
        "chart_links": {
            "workload": {r["name"]: hrefs[str(r["assignee_id"])]["open"] for r in rows}
        },
        "figures": {"workload": charts.to_json(charts.workload_figure(rows))},
    }


def _scatter(scope: Scope, query: ScatterQuery, _account: uuid.UUID) -> dict[str, Any]:
    points = rollups.scatter(scope, query.dimension)
    return {
        "result": points,
        "empty": not points,
        "figures": {"scatter": charts.to_json(charts.scatter_figure(points))},
    }


def _forecast(scope: Scope, query: ForecastPageQuery, account: uuid.UUID) -> dict[str, Any]:
    return forecast_page.build(scope, query, account)


def _pivot(scope: Scope, query: PivotQuery, _account: uuid.UUID) -> dict[str, Any]:
    result = rollups.pivot(scope, query.row, query.col)
    grid = {(c["row"], c["col"]): c["count"] for c in result["cells"]}
    row_totals = {
        r["key"]: sum(grid.get((r["key"], c["key"]), 0) for c in result["cols"])
        for r in result["rows"]
    }
    col_totals = {
        c["key"]: sum(grid.get((r["key"], c["key"]), 0) for r in result["rows"])
        for c in result["cols"]
    }
    return {
        "result": result,
        "empty": not result["cells"],
        "links": links.pivot_links(scope, result),
        "grid": grid,
        "row_totals": row_totals,
        "col_totals": col_totals,
        "figures": {},
    }


def _custom(scope: Scope, query: CustomQuery, account: uuid.UUID) -> dict[str, Any]:
    if query.dimension in TIME_DIMENSIONS:
        return _custom_time(scope, query, account)
    chart = {
        "metric": query.metric,
        "dimension": query.dimension,
        "status": query.status,
        "priority": query.priority,
        "pql": query.filter,
    }
    result = service.custom_chart(scope, account, **chart)
    total_href = links.custom_links(result["points"], scope, **chart)
    drawn = dimensions.drawable(scope.org_id, result["points"], query.dimension)
    return {
        "result": result,
        "rows": palette.table_rows(query.dimension, drawn),
        "empty": not result["points"],
        "total_href": total_href,
        "chart_links": {"custom": drill.label_map(result["points"])},
        "figures": {
            "custom": charts.to_json(charts.points_figure(drawn, dimension=query.dimension))
        },
    }


def _custom_time(scope: Scope, query: CustomQuery, account: uuid.UUID) -> dict[str, Any]:
    """The custom chart by created or completed: a series on a date axis, every
    bucket (zeros too) a point and a table row linking to its tasks."""
    result = service.custom_chart_for(scope, account, query)
    if result.get("series"):
        # What colours a project or a state (its place, its category) comes from the
        # database once, as for the custom chart's bars.
        drawn = dimensions.drawable(scope.org_id, result["series"], query.split)
        result["series"] = [{**line, **d} for line, d in zip(result["series"], drawn, strict=True)]
    return {
        "result": result,
        "empty": False,
        "total_href": result["total_href"],
        "chart_links": {},
        "figures": {"custom": charts.to_json(time_charts.time_figure(result))},
    }


_TAB_BUILDERS = {
    "overview": _overview,
    "flow": _flow,
    "flow-time": flow_page.build,
    "workload": _workload,
    "scatter": _scatter,
    "forecast": _forecast,
    "pivot": _pivot,
    "custom": _custom,
}
