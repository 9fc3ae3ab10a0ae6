"""Rollup results -> Plotly figures, serialized for ``Plotly.newPlot`` in the page.

The one module that draws: the analytics tabs, dashboards' widgets, the printable
export and the PDF. Colours, labels and the order of values come from
:mod:`workspace.analytics.palette`, so one value looks the same on every chart
(docs/analytics.md#charts). A point may carry an ``href`` (the tasks behind it): it
goes into the trace's ``customdata`` for the page's click handler; "Other" has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.io as pio

from workspace.analytics import palette
from workspace.analytics.figure import Figure, trace
from workspace.analytics.palette import (  # noqa: F401 (re-exported for the views)
    ACCENT,
    CATEGORY_COLORS,
    KIND_COLORS,
    PRIORITY_COLORS,
)

#: Characters of a horizontal bar's label shown on the axis (the hover has them all).
AXIS_LABEL = 28
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


#: A legend in a row above the plot: below it, it met the axis labels once a narrow
#: screen turned them and the margin grew to hold them.
TOP_LEGEND = dict(orientation="h", x=0, y=1.02, xanchor="left", yanchor="bottom")


def plain(text: str) -> str:
    """User text (a project, person or label name) as Plotly shows it literally.

    Plotly reads a subset of HTML in every string it draws (``<b>``, ``<br>``,
    ``<a href>``, ``<span style>``), and a style's ``url(...)`` makes the browser
    drawing the chart fetch it. Escaped with the three entities Plotly decodes
    (``&amp;``, ``&lt;``, ``&gt;``), the text is drawn as written and never as markup.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def frame(fig: Figure, **extra: Any) -> Figure:
    """Every analytics chart's frame: margins, size, fonts, a transparent ground and
    light grid lines; ``extra`` adds to or replaces the layout's settings."""
    fig.update_layout(**{**_LAYOUT, **extra})
    fig.update_yaxes(gridcolor="#eceef2", zeroline=False)
    # A label at either end may reach past the plot on a phone: the margins grow to it.
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


def to_json(fig: Figure) -> str:
    """Figure JSON safe to embed in ``<script type="application/json">``: ``<``, ``>``
    and ``&`` occur only inside JSON strings, and as ``\\u`` escapes neither ``</script``
    nor ``<!--`` can change how the HTML parser reads the element."""
    return (
        pio.to_json(fig.to_plotly_json(), validate=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def _breakdown_dimension(
    values: Mapping[str, int], colors: Any, dimension: str | None
) -> str | None:
    if dimension is not None:
        return dimension
    if colors is CATEGORY_COLORS or set(values) <= set(palette.CATEGORIES):
        return "category"
    return palette.infer_dimension(values)


def breakdown_bar(
    values: dict[str, int],
    colors: dict[str, str] | None = None,
    *,
    dimension: str | None = None,
    hrefs: Mapping[str, str] | None = None,
) -> Figure:
    """One bar per key of an overview breakdown (category, priority, kind), in the
    order given (the overview lists them in workflow order)."""
    dim = _breakdown_dimension(values, colors, dimension)
    keys = list(values)
    fig = Figure(
        trace(
            "bar",
            x=[plain(palette.label(dim, k)) for k in keys],
            y=[values[k] for k in keys],
            marker_color=[palette.color(dim, k) for k in keys],
            customdata=[(hrefs or {}).get(k) for k in keys],
            hovertemplate="%{x}: %{y}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    return _whole_ticks(frame(fig), [values[k] for k in keys])


def donut(
    values: dict[str, int],
    colors: dict[str, str] | None = None,
    *,
    dimension: str | None = None,
    hrefs: Mapping[str, str] | None = None,
) -> Figure:
    dim = _breakdown_dimension(values, colors, dimension)
    keys = [k for k, v in values.items() if v]
    fig = Figure(
        trace(
            "pie",
            labels=[plain(palette.label(dim, k)) for k in keys],
            values=[values[k] for k in keys],
            hole=0.55,
            marker=dict(colors=[palette.color(dim, k) for k in keys]),
            customdata=[(hrefs or {}).get(k) for k in keys],
            sort=False,
            direction="clockwise",
            textinfo="percent",
            hovertemplate="%{label}: %{value}<extra></extra>",
        )
    )
    return frame(fig, showlegend=True, legend=dict(orientation="v", traceorder="normal"))


def flow_figure(result: dict[str, Any]) -> Figure:
    cats = result["categories"]
    fig = Figure(
        trace(
            "bar",
            x=[palette.label("category", c["category"]) for c in cats],
            y=[c["wip"] for c in cats],
            marker_color=[palette.color("category", c["category"]) for c in cats],
            # The link first: a click handler reads customdata[0] of an array.
            customdata=[[c.get("href"), c["avg_age_days"]] for c in cats],
            hovertemplate="%{x}: %{y} items, %{customdata[1]} days in status<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    return frame(fig)


def workload_figure(rows: list[dict[str, Any]], limit: int = 15) -> Figure:
    """Open work per assignee, the ``limit`` busiest first (the table beside it lists
    everyone). One bar per person is their open work, split into in progress and the
    rest of it, so its length is the open count; completed in the last 30 days is a
    bar of its own beside it, never stacked onto open work."""
    rows = rows[:limit]
    names = palette.person_labels((i, r["name"], r.get("email") or "") for i, r in enumerate(rows))
    labels = [
        plain(names[i] + (" (agent)" if r.get("kind") == "agent" else ""))
        for i, r in enumerate(rows)
    ]
    # Each bar leads to the tasks it counts; "completed in 30 days" counts from an exact
    # moment PQL's whole days cannot express, so it leads nowhere.
    links = {
        "In progress": [r.get("href_in_progress") for r in rows],
        "Other open": [r.get("href") for r in rows],
        "Completed (30 days)": [None for _ in rows],
    }
    fig = Figure()
    in_progress = [r["in_progress"] for r in rows]
    for name, values, base, color, group in (
        ("In progress", in_progress, None, CATEGORY_COLORS["started"], "open"),
        (
            "Other open",
            [r["open"] - r["in_progress"] for r in rows],
            in_progress,
            CATEGORY_COLORS["unstarted"],
            "open",
        ),
        (
            "Completed (30 days)",
            [r["completed_30d"] for r in rows],
            None,
            CATEGORY_COLORS["completed"],
            "done",
        ),
    ):
        fig.add_bar(
            y=labels,
            x=values,
            base=base,
            name=name,
            orientation="h",
            offsetgroup=group,
            marker_color=color,
            customdata=links[name],
            hovertemplate="%{y}: %{x}<extra>" + name + "</extra>",
        )
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.update_xaxes(rangemode="tozero", title_text="Tasks")
    return frame(
        fig,
        barmode="group",
        bargap=0.25,
        bargroupgap=0.05,
        showlegend=True,
        height=max(300, 40 * len(rows) + 100),
        margin=dict(l=16, r=16, t=16, b=40),
        legend=dict(TOP_LEGEND, traceorder="normal"),
    )


def scatter_figure(points: list[dict[str, Any]]) -> Figure:
    fig = Figure(
        trace(
            "scatter",
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
    return frame(fig)


def forecast_figure(result: dict[str, Any]) -> Figure:
    weeks = [str(p["week_start"]) for p in result["series"]]
    fig = Figure(
        trace(
            "bar",
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
    return frame(fig, showlegend=True, legend=TOP_LEGEND)


def points_figure(
    points: list[dict[str, Any]],
    chart_type: str = "bar",
    *,
    dimension: str | None = None,
    top_n: int | None = palette.DEFAULT_TOP_N,
) -> Figure:
    """A custom chart or a widget: ``points`` are ``{key, value}`` (plus ``id`` for
    people and projects, ``href`` when drill-down gives one), largest first as the API
    returns them, with what only the database knows already on them
    (:func:`dimensions.drawable`, or the dashboard's compute): a project's ``slot``, a
    state's ``category``. Drawn as :func:`palette.display_order` says: the ``top_n``
    largest and "Other", in the dimension's natural order. States without a
    ``category`` take the default workflow's. Reads nothing but its arguments."""
    if dimension is None:
        dimension = palette.infer_dimension(
            (str(p["key"]) for p in points), has_ids=any(p.get("id") for p in points)
        )
    if dimension is None and any(p.get("id") for p in points) and all("slot" in p for p in points):
        # Ids that are projects (they have a place in the org) tell a caller that did
        # not name the dimension what it groups by.
        dimension = "project"
    shown = palette.display_order(dimension, points, top_n)
    raw = _unique([palette.label(dimension, str(p["key"])) for p in shown])
    keys = [plain(k) for k in raw]
    values = [p["value"] for p in shown]
    colors = [palette.point_color(dimension, p) for p in shown]
    hrefs = [None if p.get("other") else p.get("href") for p in shown]
    if chart_type in ("donut", "pie"):
        fig = Figure(
            trace(
                "pie",
                labels=keys,
                values=values,
                hole=0.55 if chart_type == "donut" else 0,
                marker=dict(colors=colors),
                customdata=hrefs,
                sort=False,
                direction="clockwise",
                hovertemplate="%{label}: %{value}<extra></extra>",
            )
        )
        return frame(fig, showlegend=True, legend=dict(traceorder="normal"))
    if chart_type in ("line", "area"):
        fig = Figure(
            trace(
                "scatter",
                x=keys,
                y=values,
                mode="lines+markers",
                fill="tozeroy" if chart_type == "area" else None,
                line=dict(color=ACCENT),
                marker=dict(color=colors, size=9, line=dict(color="#ffffff", width=1)),
                customdata=hrefs,
                hovertemplate="%{x}: %{y}<extra></extra>",
            )
        )
        # Counts start at zero (a line from 1 to 2 would look like a doubling from
        # nothing), and half a category of room each side keeps end labels whole.
        fig.update_xaxes(type="category", range=[-0.5, len(keys) - 0.5])
        fig.update_yaxes(rangemode="tozero")
        return _short_labels(_whole_ticks(frame(fig), values), keys, raw, "x")
    horizontal = len(keys) > palette.MAX_VERTICAL_BARS or any(
        len(k) > palette.LONG_LABEL for k in raw
    )
    if horizontal:
        fig = Figure(
            trace(
                "bar",
                y=keys,
                x=values,
                orientation="h",
                marker_color=colors,
                customdata=hrefs,
                hovertemplate="%{y}: %{x}<extra></extra>",
            )
        )
        frame(fig, height=max(300, 26 * len(keys) + 60), margin=dict(l=16, r=16, t=16, b=40))
        # First point on top, as it reads in a list; the value axis carries the grid.
        fig.update_yaxes(type="category", autorange="reversed", gridcolor="rgba(0,0,0,0)")
        fig.update_xaxes(rangemode="tozero", gridcolor="#eceef2", zeroline=False)
        if values and max(values) <= 8:
            fig.update_xaxes(dtick=1)
        return _short_labels(fig, keys, raw, "y")
    fig = Figure(
        trace(
            "bar",
            x=keys,
            y=values,
            marker_color=colors,
            customdata=hrefs,
            hovertemplate="%{x}: %{y}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    return _short_labels(_whole_ticks(frame(fig), values), keys, raw, "x")


def _unique(labels: list[str]) -> list[str]:
    """A category axis merges equal labels (two projects of one name): number the
    later ones."""
    seen: dict[str, int] = {}
    out = []
    for text in labels:
        seen[text] = seen.get(text, 0) + 1
        out.append(text if seen[text] == 1 else f"{text} ({seen[text]})")
    return out


def _short_labels(fig: Figure, keys: list[str], raw: list[str], axis: str) -> Figure:
    """Category labels cut to fit (the hover shows the whole name), and room made
    beside the plot for what is left. Cut before escaping, so no entity is cut in
    half."""
    limit = AXIS_LABEL if axis == "y" else 16
    shown = [plain(k if len(k) <= limit else k[: limit - 1].rstrip() + "…") for k in raw]
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(tickmode="array", tickvals=keys, ticktext=shown, automargin=True)
    return fig


def _whole_ticks(fig: Figure, values: list[float]) -> Figure:
    """Small counts get a tick per task: no "1.5 tasks" on the axis."""
    if values and max(values) <= 8:
        fig.update_yaxes(dtick=1)
    return fig
