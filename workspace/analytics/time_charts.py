"""A time series as a Plotly figure (docs/analytics.md#time): a line or area with the
buckets' first days on a date x-axis. Pure, like charts.py: it reads its points only;
each point's link to its tasks rides in ``customdata`` for the page's click handler."""

from __future__ import annotations

from typing import Any

from workspace.analytics import palette
from workspace.analytics.charts import TOP_LEGEND, frame, plain
from workspace.analytics.figure import Figure, trace

_HOVER = {
    "day": "%{x|%a %-d %b %Y}: %{y}",
    "week": "Week of %{x|%-d %b %Y}: %{y}",
    "month": "%{x|%B %Y}: %{y}",
    "quarter": "Quarter from %{x|%b %Y}: %{y}",
}


def time_figure(result: dict[str, Any], chart_type: str = "area") -> Figure:
    """``result`` is :func:`time_series.series`'s; ``chart_type`` line or area (a bar
    chart draws bars over the same axis)."""
    points = result["points"]
    x = [p["key"] for p in points]
    y = [p["value"] for p in points]
    color = palette.color("category", "completed")
    hover = _HOVER.get(result["interval"], "%{x}: %{y}") + "<extra></extra>"
    hrefs = [p.get("href") for p in points]
    if result.get("series"):
        fig = _split_figure(result, chart_type, x, hover)
    elif chart_type == "bar":
        fig = Figure(
            trace("bar", x=x, y=y, marker_color=color, customdata=hrefs, hovertemplate=hover)
        )
    else:
        fig = Figure(
            trace(
                "scatter",
                x=x,
                y=y,
                mode="lines+markers",
                fill="tozeroy" if chart_type == "area" else None,
                line=dict(color=color),
                marker=dict(color=color, size=7),
                customdata=hrefs,
                hovertemplate=hover,
            )
        )
    many = bool(result.get("series"))
    frame(fig, showlegend=many)
    if many:
        fig.update_layout(legend=TOP_LEGEND, barmode="stack")
    # A date axis: time reads left to right with even spacing, whatever the labels.
    fig.update_xaxes(type="date")
    # Counts start at zero; small counts get a tick per task.
    fig.update_yaxes(rangemode="tozero", gridcolor="#eceef2", zeroline=False)
    if y and max(y) <= 8:
        fig.update_yaxes(dtick=1)
    return fig


def _split_figure(result: dict[str, Any], chart_type: str, x: list[str], hover: str) -> Figure:
    """A trace per value of the split dimension, stacked (area or bars; a line chart
    draws them side by side), in the colours every chart gives those values. Each
    series may carry ``slot`` or ``category`` (dimensions.drawable) for its colour."""
    split = result["split"]
    fig = Figure()
    for line in result["series"]:
        name = plain(palette.label(split, str(line["key"])))
        color = palette.point_color(split, line)
        common = dict(x=x, y=line["values"], name=name, customdata=line.get("hrefs"))
        common["hovertemplate"] = hover.replace("<extra></extra>", f"<extra>{name}</extra>")
        if chart_type == "bar":
            fig.add_bar(marker_color=color, **common)
        else:
            fig.add_scatter(
                mode="lines",
                line=dict(color=color),
                stackgroup="one" if chart_type == "area" else None,
                **common,
            )
    return fig
