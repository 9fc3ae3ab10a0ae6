"""Request and response models of the AI and agents JSON API."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from workspace.agents.ask import MAX_REQUEST
from workspace.agents.spec import KINDS, PRIORITIES
from workspace.analytics.dashboards.service import MAX_TITLE
from workspace.analytics.vocabulary import Dimension, Metric
from workspace.inputs import InputModel, OutputModel


class AiSettingsIn(InputModel):
    base_url: str = Field(min_length=1, max_length=500, examples=["https://api.openai.com/v1"])
    model: str = Field(min_length=1, max_length=200, examples=["gpt-4o-mini"])
    api_key: str | None = Field(
        None, max_length=2000, description="Write-only. Blank or absent keeps the stored key."
    )


class AiSettingsOut(OutputModel):
    configured: bool
    base_url: str | None = None
    model: str | None = None
    has_api_key: bool = False
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


class SaveAnswerIn(InputModel):
    """An answer saved as a widget (the Ask box's "Save as widget" form)."""

    dashboard_id: uuid.UUID
    title: str | None = Field(None, max_length=MAX_TITLE)
    metric: Metric
    dimension: Dimension
    kind: Literal[KINDS] | None = None  # type: ignore[valid-type]
    priority: Literal[PRIORITIES] | None = None  # type: ignore[valid-type]
    project_id: uuid.UUID | None = None


class AskPoint(OutputModel):
    key: str
    value: int
    id: str | None = None


class AskOut(OutputModel):
    title: str
    metric: str
    dimension: str
    points: list[AskPoint]
    ai_run_id: uuid.UUID
    outcome: str = Field(description="ok, offline, no_match, invalid_answer, ... (docs/ai.md)")
    offline: bool
    fallback: bool = Field(description="True when this is the default chart.")
    kind: str | None = None
    priority: str | None = None


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
