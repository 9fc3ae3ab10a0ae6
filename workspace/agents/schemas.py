"""Request and response models of the AI and agents JSON API."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from workspace.agents.ask import MAX_REQUEST
from workspace.agents.spec import KINDS, PRIORITIES
from workspace.analytics.dashboards.service import MAX_TITLE
from workspace.analytics.vocabulary import (
    MAX_PQL_LENGTH,
    ChartDimension,
    Dimension,
    Interval,
    Metric,
    RangePreset,
)
from workspace.inputs import InputModel, OutputModel

_BASE_URL_DOC = (
    "The address before /chat/completions. Pasted with /chat/completions, a doubled /v1 "
    "or a trailing slash, it is stored without them. Azure OpenAI: the deployment URL, "
    "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT (its ?api-version= "
    "is kept)."
)
_API_VERSION_DOC = (
    "Azure OpenAI only (required there), e.g. 2024-10-21; ignored for other providers."
)


class AiSettingsIn(InputModel):
    base_url: str = Field(
        min_length=1,
        max_length=500,
        examples=["https://api.openai.com/v1"],
        description=_BASE_URL_DOC,
    )
    model: str = Field(min_length=1, max_length=200, examples=["gpt-4o-mini"])
    api_key: str | None = Field(
        None, max_length=2000, description="Write-only. Blank or absent keeps the stored key."
    )
    api_version: str | None = Field(None, max_length=40, description=_API_VERSION_DOC)


class AiTestIn(InputModel):
    """Values to test before saving; each one left out is taken from the saved settings
    (the stored key only for the same host)."""

    base_url: str | None = Field(None, max_length=500, description=_BASE_URL_DOC)
    model: str | None = Field(None, max_length=200)
    api_key: str | None = Field(None, max_length=2000, description="Write-only.")
    api_version: str | None = Field(None, max_length=40, description=_API_VERSION_DOC)


class AiSettingsOut(OutputModel):
    configured: bool
    base_url: str | None = None
    model: str | None = None
    has_api_key: bool = False
    api_version: str | None = Field(None, description="Azure OpenAI's api-version, if any.")
    azure: bool = Field(False, description="The base URL is an Azure OpenAI endpoint.")
    learnt: list[str] = Field(
        default_factory=list,
        description="What the provider was learnt to need for this model (docs/ai.md#providers).",
    )
    updated_at: datetime | None = None


class AiTestOut(OutputModel):
    ok: bool
    message: str


class AskIn(InputModel):
    text: str = Field(
        min_length=1,
        max_length=MAX_REQUEST,
        description=f"What to chart, in plain words; at most {MAX_REQUEST} characters.",
    )
    project_id: uuid.UUID | None = Field(None, description="Only this project's tasks.")


class AskForm(AskIn):
    """The Ask box's form: asked on a dashboard's page, it names that dashboard, which
    the answer offers first for saving."""

    dashboard_id: uuid.UUID | None = None


class SaveAnswerIn(InputModel):
    """An answer saved as a widget (the Ask box's "Save as widget" form)."""

    dashboard_id: uuid.UUID
    title: str | None = Field(None, max_length=MAX_TITLE)
    metric: Metric
    dimension: ChartDimension
    kind: Literal[KINDS] | None = None  # type: ignore[valid-type]
    priority: Literal[PRIORITIES] | None = None  # type: ignore[valid-type]
    project_id: uuid.UUID | None = None
    #: A reading over time keeps its bucket, range preset and split as the widget's.
    interval: Interval | None = None
    range: RangePreset | None = None
    split: Dimension | None = None
    #: The reading's PQL filter, the widget's beside the kind and priority.
    filter: str | None = Field(None, max_length=MAX_PQL_LENGTH)


class AskPoint(OutputModel):
    key: str
    value: int
    id: str | None = None


class AskSeries(OutputModel):
    """One value of a split over time: its count at each of ``points``' buckets."""

    key: str
    id: str | None = None
    split_key: str | None = None
    values: list[int]
    #: Each bucket's tasks of this value (the drill-down), in the order of ``values``.
    hrefs: list[str] = Field(default_factory=list)


class AskOut(OutputModel):
    title: str
    metric: str
    dimension: str
    points: list[AskPoint]
    #: Over time with a split (``understood.split``): a series per value, drawn
    #: stacked; without one, null. An answer that left it out drew one area for all.
    series: list[AskSeries] | None = None
    ai_run_id: uuid.UUID
    outcome: str = Field(description="ok, offline, no_match, invalid_answer, ... (docs/ai.md)")
    offline: bool = Field(description="True when the built-in interpreter chose the chart.")
    fallback: bool = Field(description="True when this is the default chart.")
    kind: str | None = None
    priority: str | None = None
    model_note: str | None = Field(
        None,
        description="Set when the model failed: why, and that the chart comes from the "
        "built-in interpreter (or is the default chart).",
    )
    reading: str = Field(
        "",
        description="What the chart shows, in words: 'Done tasks, per week, completed "
        "this quarter, where priority = urgent' (docs/ai.md#the-reading).",
    )
    understood: dict[str, str] = Field(
        default_factory=dict,
        description="The reading as the custom chart's query: metric, dimension, "
        "interval, range, split, priority, filter.",
    )
    unused: list[str] = Field(
        default_factory=list, description="Words of the request the reading could not use."
    )
    custom_href: str | None = Field(None, description="The Custom tab prefilled with it.")


class CreditsOut(OutputModel):
    used: int
    limit: int
    remaining: int
    percent: float


class AgentCreate(InputModel):
    name: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=500)
    project_ids: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=200,
        description="Projects the agent joins with the member role (it can work there).",
    )


class AgentOut(OutputModel):
    id: uuid.UUID = Field(description="The agent's account id (its actor id in history).")
    member_id: uuid.UUID
    name: str
    description: str | None
    kind: str
    token_prefix: str | None
    token_last_used_at: datetime | None
    created_at: datetime


class AgentCreated(AgentOut):
    token: str = Field(description="The agent's token, shown only in this response.")
