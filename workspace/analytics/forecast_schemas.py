"""Query and response models of the Monte Carlo forecast (docs/analytics.md#forecast-dates).

Apart from the spec's forecast models (``schemas.ForecastQuery``/``ForecastOut``),
which stay as they are."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from workspace.analytics.schemas import ForecastQuery, ScopeQuery
from workspace.inputs import OutputModel

SAMPLE_WEEKS = Field(
    12, ge=2, le=26, description="Weeks of daily throughput to sample, 2 to 26 (default 12)."
)
OPEN_FILTER = Field(
    None,
    max_length=2000,
    description="A PQL selection of the open work to forecast (the throughput stays the scope's).",
)


class ForecastDatesQuery(ScopeQuery):
    weeks: int = SAMPLE_WEEKS
    filter: str | None = OPEN_FILTER


class ForecastPageQuery(ForecastQuery):
    """The Forecast tab: the spec's window (``weeks``) and the Monte Carlo inputs."""

    sample_weeks: int = SAMPLE_WEEKS
    filter: str | None = OPEN_FILTER


class ForecastSample(OutputModel):
    """The whole days (org time zone) whose completions the runs drew from."""

    first_day: date
    last_day: date
    days: int
    completed: int


class ForecastLevel(OutputModel):
    level: int = Field(description="Confidence in percent: 50, 85 or 95.")
    days: int | None = Field(
        description="Days from today (day 1 is tomorrow) by which the open work is done "
        "in this share of the runs; null when not within three years."
    )
    date: date | None
    done_next_two_weeks: int = Field(
        description="At least this many done in the next 14 days in this share of the runs."
    )


class ForecastDatesOut(OutputModel):
    weeks: int
    filter: str | None
    open: int = Field(description="Open work: backlog, unstarted and started tasks that count.")
    sample: ForecastSample
    runs: int = Field(description="Simulations run: 10,000, or 0 when there was nothing to run.")
    today: date
    levels: list[ForecastLevel]
    sampled: str = Field(description="What was sampled, in words.")
    message: str | None = Field(description="Why there are no dates, when there are none.")
