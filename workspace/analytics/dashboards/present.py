"""A computed widget -> what a template shows: a chart, a number, a table, or why not.

The page, the widget partials, the printable export and the PDF all go through here,
and every chart is drawn by ``workspace.analytics.charts.points_figure``. A pure
function of the computed result (``compute`` fetched everything it draws): it reads
no database and no request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from workspace.analytics import charts, drill, palette, time_charts
from workspace.analytics.dashboards.compute import WidgetResult
from workspace.analytics.figure import Figure
from workspace.core.dates import day


@dataclass
class WidgetView:
    key: str
    title: str
    chart_type: str
    #: "chart", "number", "table", "empty" or "error".
    kind: str
    span: int
    dimension: str
    points: list[dict[str, Any]]
    total: int = 0
    error: str | None = None
    figure: Figure | None = None
    #: The tasks behind the whole figure (drill-down); none in exports and previews.
    total_href: str | None = None
    #: A time dimension's bucket ("week") and the range it shows in words, with
    #: whose range it is (docs/dashboards.md#time); None for the five dimensions.
    interval: str | None = None
    range_words: str | None = None
    range_source: str | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The table's rows, every group largest first (a time widget's buckets oldest
        first), each with its ``label`` written as on the charts ("Urgent", not
        "urgent"; "Week of 2 Nov 2026")."""
        if self.interval:
            return [
                {**p, "label": bucket_label(date.fromisoformat(p["key"]), self.interval)}
                for p in self.points
            ]
        return [{**p, "label": palette.label(self.dimension, str(p["key"]))} for p in self.points]

    @property
    def heading(self) -> str:
        """The table's first column."""
        if self.interval:
            return f"{self.interval.capitalize()} ({self.dimension})"
        return self.dimension.capitalize()

    @property
    def figure_json(self) -> str:
        return charts.to_json(self.figure) if self.figure is not None else "null"

    @property
    def links(self) -> dict[str, Any]:
        """Drill-down of the live page's widget body: ``{"points": {label: href},
        "total": href}``, empty unless the page linked the result (``DashboardQuery.link``)."""
        if self.kind == "error":
            return {"points": {}, "total": None}
        return {"points": drill.label_map(self.points), "total": self.total_href}


def present(result: WidgetResult) -> WidgetView:
    spec = result.spec
    view = WidgetView(
        key=spec.key,
        title=spec.title,
        chart_type=spec.chart_type,
        kind="chart",
        span=spec.span,
        dimension=spec.dimension,
        points=result.points,
        total=result.total,
        error=result.error,
        total_href=result.total_href,
    )
    if result.series is not None:
        view.interval = result.series["interval"]
        view.range_words, view.range_source = result.range_words, result.range_source
    if result.error:
        view.kind = "error"
    elif spec.chart_type == "number":
        # A headline figure is meaningful even at zero.
        view.kind = "number"
    elif not result.points:
        view.kind = "empty"
    elif spec.chart_type == "table":
        view.kind = "table"
    elif result.series is not None:
        # Time reads left to right: a pie or donut of weeks would hide it, so they
        # draw the bars (docs/dashboards.md#time); a split stacks (area, bars).
        drawn = spec.chart_type if spec.chart_type in ("line", "area") else "bar"
        view.figure = time_charts.time_figure(result.series, drawn)
    else:
        view.figure = charts.points_figure(
            result.chart_points,
            spec.chart_type,
            dimension=spec.dimension,
            top_n=spec.top_n or palette.DEFAULT_TOP_N,
        )
    return view


def bucket_label(start: date, interval: str) -> str:
    """A bucket as a table row says it, from its first day in the range."""
    if interval == "day":
        return day(start, weekday=True)
    if interval == "week":
        return f"Week of {day(start)}"
    if interval == "month":
        return f"{start:%B %Y}"
    return f"Q{(start.month - 1) // 3 + 1} {start.year}"
