"""Flow over time as Plotly figures: the cycle-time scatter and the cumulative flow
diagram (docs/analytics.md#flow-over-time). Colours and labels come from the palette,
as on every other chart; a scatter point carries its task's link in ``customdata[0]``
for the page's click handler."""

from __future__ import annotations

from typing import Any

from workspace.analytics import palette
from workspace.analytics.charts import TOP_LEGEND, frame, plain
from workspace.analytics.figure import Figure, trace

#: The percentile lines, lightest for the median.
_PERCENTILE_DASH = {50: "dot", 85: "dash", 95: "solid"}


def _layout(fig: Figure) -> Figure:
    """The analytics charts' frame with a legend under the plot: both charts name
    what each trace is."""
    return frame(fig, height=320, showlegend=True, legend=TOP_LEGEND)


def cycle_time_figure(result: dict[str, Any]) -> Figure:
    points = result["points"]
    fig = Figure(
        trace(
            "scatter",
            mode="markers",
            x=[p["completed_at"].isoformat() for p in points],
            y=[p["days"] for p in points],
            name="Tasks",
            marker=dict(color=palette.color("category", "completed"), size=7, opacity=0.7),
            customdata=[[p["href"], plain(p["key"]), plain(p["title"])] for p in points],
            hovertemplate="%{customdata[1]} %{customdata[2]}<br>%{y} days, done %{x}"
            "<extra></extra>",
        )
    )
    span = [str(result["start"]), str(result["end"])]
    for line in result["percentiles"]:
        fig.add_scatter(
            x=span,
            y=[line["days"], line["days"]],
            mode="lines",
            name=f"{line['p']}th percentile: {line['days']} days",
            line=dict(color="#4f46e5", dash=_PERCENTILE_DASH.get(line["p"], "solid"), width=1.5),
            hovertemplate=f"{line['p']}% finished within %{{y}} days<extra></extra>",
        )
    fig.update_xaxes(type="date", title_text="Completed")
    fig.update_yaxes(title_text="Days from first start", rangemode="tozero")
    return _layout(fig)


def cumulative_flow_figure(result: dict[str, Any]) -> Figure:
    days = [str(d["day"]) for d in result["days"]]
    fig = Figure()
    for category in result["categories"]:
        fig.add_scatter(
            x=days,
            y=[d[category] for d in result["days"]],
            mode="lines",
            stackgroup="flow",
            name=palette.label("category", category),
            line=dict(color=palette.color("category", category), width=0.5),
            hovertemplate=f"{palette.label('category', category)} at the end of %{{x}}: "
            "%{y}<extra></extra>",
        )
    fig.update_xaxes(type="date")
    fig.update_yaxes(title_text="Tasks", rangemode="tozero")
    return _layout(fig)
