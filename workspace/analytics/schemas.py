"""Query and response models of the analytics API (validated, documented in OpenAPI)."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Literal

from pydantic import Field

from workspace.analytics.vocabulary import (
    ChartDimension,
    Dimension,
    Interval,
    Metric,
    RangePreset,
)
from workspace.inputs import OutputModel, QueryModel

PriorityName = Literal["urgent", "high", "medium", "low", "none"]


class ScopeQuery(QueryModel):
    project_id: uuid.UUID | None = Field(None, description="Only this project's tasks.")


class ScatterQuery(ScopeQuery):
    dimension: Literal["cycle", "module"] = "cycle"


class ForecastQuery(ScopeQuery):
    weeks: int = Field(8, ge=2, le=26, description="Full weeks in the window, 2 to 26.")


class PivotQuery(ScopeQuery):
    row: Dimension = "assignee"
    col: Dimension = "status"


class CustomQuery(ScopeQuery):
    metric: Metric = "count"
    dimension: ChartDimension = Field(
        "status", description="One of the five, or a time: created, completed."
    )
    interval: Interval = Field("week", description="A time dimension's bucket.")
    from_: date | None = Field(None, alias="from", description="First day (org time zone).")
    to: date | None = Field(None, description="Last day, included (org time zone).")
    range: RangePreset | None = Field(None, description="A preset range instead of from/to.")
    split: Dimension | None = Field(
        None, description="A time dimension's series split by one of the five."
    )
    status: str | None = Field(
        None, max_length=100, pattern=r"^[^\x00]*$", description="A status (state) name."
    )
    priority: PriorityName | None = None
    filter: str | None = Field(None, max_length=2000, description="A PQL filter.")


class OverviewOut(OutputModel):
    total: int
    completed: int
    completion_rate: float
    overdue: int
    by_category: dict[str, int]
    by_priority: dict[str, int]
    by_kind: dict[str, int]


class FlowCategory(OutputModel):
    category: str
    wip: int
    avg_age_days: float


class FlowOut(OutputModel):
    categories: list[FlowCategory]
    total_wip: int


class WorkloadRow(OutputModel):
    assignee_id: uuid.UUID
    name: str
    email: str
    kind: str
    open: int
    in_progress: int
    completed_30d: int


class ScatterPoint(OutputModel):
    id: uuid.UUID
    name: str
    project_id: uuid.UUID
    project_name: str
    scope: int
    completed: int
    completion_rate: float


class ForecastWeek(OutputModel):
    week_start: date
    completed: int


class ForecastOut(OutputModel):
    weeks: int
    series: list[ForecastWeek]
    average_per_week: float
    projected_next_week: float
    next_week_start: date


class PivotKey(OutputModel):
    key: str
    label: str


class PivotCell(OutputModel):
    row: str
    col: str
    count: int


class PivotOut(OutputModel):
    row: str
    col: str
    rows: list[PivotKey]
    cols: list[PivotKey]
    cells: list[PivotCell]


class ChartPoint(OutputModel):
    key: str
    value: int
    id: str | None = None


class CustomOut(OutputModel):
    metric: str
    dimension: str
    points: list[ChartPoint]


class TimePoint(ChartPoint):
    """A bucket of a time series: ``key`` is its first day, ``start``/``end`` the
    days of the range it counts (both included), ``href`` its tasks."""

    start: date
    end: date
    href: str | None = None


class SeriesLine(OutputModel):
    """One value of the split dimension: its label (``key``), id (people, projects),
    and per bucket its count and the link to those tasks."""

    key: str
    id: str | None = None
    values: list[int]
    hrefs: list[str | None]


class TimeSeriesOut(CustomOut):
    """The custom chart by a time dimension (docs/analytics.md#time), oldest first."""

    interval: str
    #: The range's first and last day (both included), in the org's time zone.
    first_day: date
    last_day: date
    points: list[TimePoint]
    #: The tasks of every point together.
    total_href: str | None = None
    #: With ``split``: one series per value of it, its buckets in the points' order.
    split: str | None = None
    series: list[SeriesLine] | None = None
