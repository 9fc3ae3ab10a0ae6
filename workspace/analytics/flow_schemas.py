"""Query and response models of flow over time (docs/analytics.md#flow-over-time)."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from workspace.inputs import OutputModel, QueryModel


class FlowTimeQuery(QueryModel):
    project_id: uuid.UUID | None = Field(None, description="Only this project's tasks.")
    from_: date | None = Field(
        None, alias="from", description="First day (org time zone); default 89 days before `to`."
    )
    to: date | None = Field(None, description="Last day, included (org time zone); default today.")
    filter: str | None = Field(None, max_length=2000, description="A PQL filter.")


class CyclePoint(OutputModel):
    task_id: uuid.UUID
    key: str
    title: str
    started_at: datetime
    completed_at: datetime
    days: float
    href: str


class Percentile(OutputModel):
    p: int
    days: float


class CycleTimeOut(OutputModel):
    start: date
    end: date
    points: list[CyclePoint] = Field(
        description="The started tasks completed in the range, in completion order; at most "
        "500 (the slowest) when more were: see `point_count` and `truncated`."
    )
    point_count: int = Field(
        description="Started tasks completed in the range: what the percentiles are over."
    )
    truncated: bool = Field(description="Whether `points` holds fewer than `point_count`.")
    percentiles: list[Percentile]
    completed_without_start: int


class FlowDay(OutputModel):
    day: date
    backlog: int
    unstarted: int
    started: int
    completed: int
    cancelled: int


class CumulativeFlowOut(OutputModel):
    start: date
    end: date
    categories: list[str]
    days: list[FlowDay]
