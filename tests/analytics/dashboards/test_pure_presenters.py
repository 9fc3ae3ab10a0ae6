"""Presenting a computed dashboard and drawing its charts read nothing but what the
computation fetched (docs/dashboards.md#computing): with the application gone, and so
no database session to reach, every widget of every chart type and dimension is
presented, its figure drawn and serialized, its table rows and drill-down links read;
the same holds for the Custom tab's chart once its points are made drawable."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.analytics.dashboards.conftest import World
from workspace.analytics import charts, dimensions, rollups
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.present import present
from workspace.analytics.dashboards.query import DashboardQuery
from workspace.analytics.scope import make_scope
from workspace.analytics.vocabulary import CHART_TYPES, DIMENSIONS
from workspace.core.models import Org
from workspace.extensions import db


def test_present_and_charts_need_no_database(app, world: World):
    specs = [
        WidgetSpec(
            key=f"{dimension}-{chart_type}",
            title=f"{dimension} as {chart_type}",
            chart_type=chart_type,
            metric="count",
            dimension=dimension,
        )
        for dimension in DIMENSIONS
        for chart_type in CHART_TYPES
    ]
    with app.test_request_context():
        org = db.session.get(Org, world.acme.org_id)
        query = DashboardQuery(org, world.acme.owner_id, view_filter="kind != epic")
        results = query.link(query.compute(specs))
        custom = {
            dimension: dimensions.drawable(
                org.id, rollups.custom_chart(make_scope(org), "count", dimension), dimension
            )
            for dimension in DIMENSIONS
        }
    with pytest.raises(RuntimeError, match="application context"):
        db.session.execute(text("SELECT 1"))

    views = [present(result) for result in results]
    assert [view.kind for view in views] == [
        {"number": "number", "table": "table"}.get(spec.chart_type, "chart") for spec in specs
    ]
    for view in views:
        assert view.total == 6, view.key
        assert view.figure_json.startswith("{" if view.kind == "chart" else "null")
        assert [row["value"] for row in view.rows] == [p["value"] for p in view.points]
        assert view.links["total"] and all(view.links["points"].values())
    for dimension, points in custom.items():
        for chart_type in CHART_TYPES[:5]:
            figure = charts.points_figure(points, chart_type, dimension=dimension)
            assert charts.to_json(figure).startswith("{"), (dimension, chart_type)
    # What only the database knew came along: a project's place, a state's category.
    assert all("slot" in p for p in custom["project"])
    assert all(p.get("category") for p in custom["status"])
