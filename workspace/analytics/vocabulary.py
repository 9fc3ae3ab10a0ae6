"""The words analytics speaks, defined once: metrics, dimensions, chart types, and how
long a filter may be.

The custom chart, dashboards' widgets, ask-a-chart and the agent tools all accept the
same values; the JSON API documents them through the ``Literal`` types below. The
first value of each tuple is the default a missing or unrecognized widget setting
falls back to (docs/dashboards.md#widgets).
"""

from __future__ import annotations

from typing import Literal

#: What a chart counts: every task, the completed ones, the still open ones.
METRICS = ("count", "done", "open")
#: What a chart groups by.
DIMENSIONS = ("status", "priority", "kind", "assignee", "project")
#: Time dimensions (docs/analytics.md#time): a series per day, week, month or quarter
#: of the tasks' creation or completion, beside the five above (the custom chart).
TIME_DIMENSIONS = ("created", "completed")
INTERVALS = ("day", "week", "month", "quarter")
#: Date ranges by name; the first and last day are both in the org's time zone.
RANGE_PRESETS = ("last_7_days", "last_30_days", "last_90_days", "this_quarter", "last_quarter")
#: How a widget shows its points; the first five are drawn by Plotly.
CHART_TYPES = ("bar", "line", "area", "donut", "pie", "number", "table")

Metric = Literal[METRICS]  # type: ignore[valid-type]
Dimension = Literal[DIMENSIONS]  # type: ignore[valid-type]
ChartDimension = Literal[(*DIMENSIONS, *TIME_DIMENSIONS)]  # type: ignore[valid-type]
Interval = Literal[INTERVALS]  # type: ignore[valid-type]
RangePreset = Literal[RANGE_PRESETS]  # type: ignore[valid-type]

METRIC_LABELS = {"count": "Tasks", "done": "Completed tasks", "open": "Open tasks"}

#: The longest PQL filter (docs/pql.md): the parser refuses a longer one, and a
#: drill-down link whose expression would be longer is left out rather than cut.
MAX_PQL_LENGTH = 2000
