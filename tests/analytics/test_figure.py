"""The charts' figures, built as plain dicts (workspace/analytics/figure.py), are valid
Plotly figures that graph objects write exactly as they are: read back through
``plotly.graph_objects`` (which validates every property), they come out unchanged."""

from __future__ import annotations

from datetime import date

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from workspace.analytics import charts

POINTS = [
    {"key": "Ann <ann@x>", "value": 5, "href": "/t?a"},
    {"key": "Bob", "value": 2, "href": "/t?b"},
    {"key": None, "value": 1},
]
LONG = [{"key": f"A rather long project name {i}", "value": 9 - i} for i in range(9)]
WORKLOAD = [
    {"name": "Eve", "email": "e@x", "kind": "agent", "open": 3, "in_progress": 1,
     "completed_30d": 0, "href": "/t?e", "href_in_progress": "/t?e&s"},
    {"name": "Dan", "email": "d@x", "kind": "person", "open": 12, "in_progress": 4,
     "completed_30d": 7},
]  # fmt: skip
FORECAST = {
    "series": [
        {"week_start": date(2026, 11, 2), "completed": 3},
        {"week_start": date(2026, 11, 9), "completed": 0},
    ],
    "next_week_start": date(2026, 11, 16),
    "projected_next_week": 1.5,
    "average_per_week": 1.5,
}  # fmt: skip

FIGURES = {
    "bar": lambda: charts.points_figure(POINTS, "bar", dimension="assignee"),
    "bar, few small counts": lambda: charts.points_figure(POINTS[:1], "bar", dimension="kind"),
    "horizontal bar": lambda: charts.points_figure(LONG, "bar", dimension="project"),
    "line": lambda: charts.points_figure(POINTS, "line", dimension="assignee"),
    "area": lambda: charts.points_figure(POINTS, "area", dimension="assignee"),
    "pie": lambda: charts.points_figure(POINTS, "pie", dimension="assignee"),
    "donut": lambda: charts.points_figure(POINTS, "donut", dimension="priority"),
    "breakdown bar": lambda: charts.breakdown_bar({"urgent": 2, "low": 3}, hrefs={"low": "/l"}),
    "breakdown donut": lambda: charts.donut({"started": 2, "completed": 0, "backlog": 1}),
    "flow": lambda: charts.flow_figure(
        {"categories": [{"category": "started", "wip": 2, "avg_age_days": 1.5, "href": "/s"}]}
    ),
    "workload": lambda: charts.workload_figure(WORKLOAD),
    "scatter": lambda: charts.scatter_figure(
        [{"scope": 4, "completion_rate": 0.5, "project_name": "Web", "name": "C1"}]
    ),
    "forecast": lambda: charts.forecast_figure(FORECAST),
}


@pytest.mark.parametrize("name", FIGURES)
def test_figures_are_what_graph_objects_write(name):
    figure = FIGURES[name]().to_plotly_json()
    # Unknown or misspelt properties, or values of the wrong kind, raise here.
    assert go.Figure(figure).to_plotly_json() == figure
    assert figure["layout"]["template"] == pio.templates["none"].to_plotly_json()
    assert all(trace["type"] in ("bar", "pie", "scatter") for trace in figure["data"])


def test_an_unset_property_is_left_out_and_a_nested_one_merges():
    figure = charts.points_figure(POINTS, "bar", dimension="assignee").to_plotly_json()
    layout = figure["layout"]
    # update_layout(margin=...) then update_yaxes(...): both kept, nothing overwritten.
    assert layout["yaxis"]["gridcolor"] == "#eceef2" and layout["yaxis"]["zeroline"] is False
    assert layout["hoverlabel"] == {"font": {"size": 12}}
    assert layout["xaxis"]["type"] == "category" and layout["xaxis"]["tickmode"] == "array"
    bar = charts.points_figure(POINTS, "line", dimension="assignee").to_plotly_json()["data"][0]
    assert "fill" not in bar  # fill=None on a line chart sets nothing
