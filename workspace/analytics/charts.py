"""Rollup results -> Plotly figures, serialized for ``Plotly.newPlot`` in the page.

The one module that draws: the analytics tabs use it now, and dashboards and the
printable export reuse :func:`points_figure` for their widgets.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from workspace.analytics.dimensions import UNASSIGNED

ACCENT = "#4f46e5"
CATEGORY_COLORS = {
    "backlog": "#a0a7b4",
    "unstarted": "#6b8bb8",
    "started": "#e0a030",
    "completed": "#3f9a60",
    "cancelled": "#c46a6a",
}
PRIORITY_COLORS = {
    "urgent": "#c53030",
    "high": "#e07a45",
    "medium": "#e4b93c",
    "low": "#5b8fd0",
    "none": "#b8bec9",
}
_LAYOUT = dict(
    margin=dict(l=48, r=16, t=16, b=48),
    height=300,
    paper_bgcolor="rgba(0,0,0,0)",
    plot_bgcolor="rgba(0,0,0,0)",
    template="none",
    font=dict(family="system-ui, sans-serif", size=12),
    showlegend=False,
    hoverlabel=dict(font_size=12),
)


def plain(text: str) -> str:
    """User text (a project, person or label name) as Plotly shows it literally.

    Plotly reads a subset of HTML in every string it draws (``<b>``, ``<br>``,
    ``<a href>``, ``<span style>``), and a style's ``url(...)`` makes the browser
    drawing the chart fetch it. Escaped with the three entities Plotly decodes
    (``&amp;``, ``&lt;``, ``&gt;``), the text is drawn as written and never as markup.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _layout(fig: go.Figure, **extra: Any) -> go.Figure:
    fig.update_layout(**{**_LAYOUT, **extra})
    fig.update_yaxes(gridcolor="#eceef2", zeroline=False)
    return fig


def to_json(fig: go.Figure) -> str:
    """Figure JSON safe to embed in ``<script type="application/json">``: ``<``, ``>``
    and ``&`` occur only inside JSON strings, and as ``\\u`` escapes neither ``</script``
    nor ``<!--`` can change how the HTML parser reads the element."""
    return (
        pio.to_json(fig, validate=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def breakdown_bar(values: dict[str, int], colors: dict[str, str] | None = None) -> go.Figure:
    keys = list(values)
    fig = go.Figure(
        go.Bar(
            x=[plain(k.capitalize()) for k in keys],
            y=[values[k] for k in keys],
            marker_color=[(colors or {}).get(k, ACCENT) for k in keys],
            hovertemplate="%{x}: %{y}<extra></extra>",
        )
    )
    return _layout(fig)


def donut(values: dict[str, int], colors: dict[str, str] | None = None) -> go.Figure:
    keys = [k for k, v in values.items() if v]
    fig = go.Figure(
        go.Pie(
            labels=[plain(k.capitalize()) for k in keys],
            values=[values[k] for k in keys],
            hole=0.55,
            marker=dict(colors=[(colors or {}).get(k, ACCENT) for k in keys]),
            sort=False,
            textinfo="percent",
            hovertemplate="%{label}: %{value}<extra></extra>",
        )
    )
    return _layout(fig, showlegend=True, legend=dict(orientation="v"))


def flow_figure(result: dict[str, Any]) -> go.Figure:
    cats = result["categories"]
    fig = go.Figure(
        go.Bar(
            x=[c["category"].capitalize() for c in cats],
            y=[c["wip"] for c in cats],
            marker_color=[CATEGORY_COLORS[c["category"]] for c in cats],
            customdata=[c["avg_age_days"] for c in cats],
            hovertemplate="%{x}: %{y} items, %{customdata} days in status<extra></extra>",
        )
    )
    return _layout(fig)


def workload_figure(rows: list[dict[str, Any]], limit: int = 15) -> go.Figure:
    rows = list(reversed(rows[:limit]))
    # A category axis merges equal labels: two people of one name need their emails.
    taken = Counter(r["name"] for r in rows)
    names = [
        plain(
            (r["name"] if taken[r["name"]] == 1 else f"{r['name']} <{r['email']}>")
            + (" (agent)" if r["kind"] == "agent" else "")
        )
        for r in rows
    ]
    fig = go.Figure()
    for key, label, color in (
        ("in_progress", "In progress", CATEGORY_COLORS["started"]),
        ("open", "Other open", CATEGORY_COLORS["unstarted"]),
        ("completed_30d", "Completed (30 days)", CATEGORY_COLORS["completed"]),
    ):
        values = [r[key] - r["in_progress"] if key == "open" else r[key] for r in rows]
        fig.add_bar(
            y=names,
            x=values,
            name=label,
            orientation="h",
            marker_color=color,
            hovertemplate="%{y}: %{x}<extra>" + label + "</extra>",
        )
    return _layout(
        fig,
        barmode="stack",
        showlegend=True,
        height=max(300, 28 * len(rows) + 80),
        margin=dict(l=160, r=16, t=16, b=40),
        legend=dict(orientation="h", y=-0.12),
    )


def scatter_figure(points: list[dict[str, Any]]) -> go.Figure:
    fig = go.Figure(
        go.Scatter(
            x=[p["scope"] for p in points],
            y=[p["completion_rate"] for p in points],
            text=[plain(f"{p['project_name']} · {p['name']}") for p in points],
            mode="markers",
            marker=dict(size=11, color=ACCENT, opacity=0.75),
            hovertemplate="%{text}<br>%{x} tasks, %{y:.1%} done<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="Tasks in scope")
    fig.update_yaxes(title_text="Completion rate", tickformat=".0%", range=[-0.05, 1.05])
    return _layout(fig)


def forecast_figure(result: dict[str, Any]) -> go.Figure:
    weeks = [str(p["week_start"]) for p in result["series"]]
    fig = go.Figure(
        go.Bar(
            x=weeks,
            y=[p["completed"] for p in result["series"]],
            name="Completed",
            marker_color=CATEGORY_COLORS["completed"],
            hovertemplate="Week of %{x}: %{y}<extra></extra>",
        )
    )
    fig.add_bar(
        x=[str(result["next_week_start"])],
        y=[result["projected_next_week"]],
        name="Projected",
        marker=dict(color="rgba(79,70,229,0.25)", line=dict(color=ACCENT, width=1.5)),
        hovertemplate="Projected for %{x}: %{y}<extra></extra>",
    )
    fig.add_scatter(
        x=[*weeks, str(result["next_week_start"])],
        y=[result["average_per_week"]] * (len(weeks) + 1),
        mode="lines",
        name="Average",
        line=dict(color="#8b8fa3", dash="dot"),
        hovertemplate="Average: %{y}<extra></extra>",
    )
    fig.update_xaxes(type="category")
    return _layout(fig, showlegend=True, legend=dict(orientation="h", y=-0.2))


def points_figure(points: list[dict[str, Any]], chart_type: str = "bar") -> go.Figure:
    """A custom chart or a widget: ``points`` are ``{key, value}``, largest first."""
    raw = ["Unassigned" if p["key"] == UNASSIGNED else str(p["key"]) for p in points]
    keys = [plain(k) for k in raw]
    values = [p["value"] for p in points]
    if chart_type in ("donut", "pie"):
        fig = go.Figure(
            go.Pie(
                labels=keys,
                values=values,
                hole=0.55 if chart_type == "donut" else 0,
                sort=False,
                hovertemplate="%{label}: %{value}<extra></extra>",
            )
        )
        return _layout(fig, showlegend=True)
    if chart_type in ("line", "area"):
        fig = go.Figure(
            go.Scatter(
                x=keys,
                y=values,
                mode="lines+markers",
                fill="tozeroy" if chart_type == "area" else None,
                line=dict(color=ACCENT),
                hovertemplate="%{x}: %{y}<extra></extra>",
            )
        )
        # Counts start at zero (a line from 1 to 2 would look like a doubling from
        # nothing), and half a category of room each side keeps end labels whole.
        fig.update_xaxes(type="category", range=[-0.5, len(keys) - 0.5])
        fig.update_yaxes(rangemode="tozero")
        return _short_labels(_whole_ticks(_layout(fig), values), keys, raw)
    fig = go.Figure(
        go.Bar(x=keys, y=values, marker_color=ACCENT, hovertemplate="%{x}: %{y}<extra></extra>")
    )
    fig.update_xaxes(type="category")
    return _short_labels(_whole_ticks(_layout(fig), values), keys, raw)


def _short_labels(fig: go.Figure, keys: list[str], raw: list[str]) -> go.Figure:
    """Category labels cut to fit under their bar (the hover shows the whole name),
    and room made below the plot for what is left. Cut before escaping, so no
    entity is cut in half."""
    shown = [plain(k if len(k) <= 16 else k[:15] + "…") for k in raw]
    fig.update_xaxes(tickmode="array", tickvals=keys, ticktext=shown, automargin=True)
    return fig


def _whole_ticks(fig: go.Figure, values: list[float]) -> go.Figure:
    """Small counts get a tick per task: no "1.5 tasks" on the axis."""
    if values and max(values) <= 8:
        fig.update_yaxes(dtick=1)
    return fig
