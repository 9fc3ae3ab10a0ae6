"""What an alert request sends and answers; the page's form is the same model."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from workspace.inputs import InputModel, OutputModel

#: Check intervals, in minutes: the schedule runs every 5 minutes, a day is plenty.
MIN_INTERVAL, MAX_INTERVAL, DEFAULT_INTERVAL = 5, 24 * 60, 15
#: A threshold past this is a typo, not a figure a task count reaches.
MAX_THRESHOLD = 1e12
MAX_RECIPIENTS = 20


class AlertFields(InputModel):
    """An alert on a widget's headline number (its total), or on one ``category`` of
    it (a row's label as the widget shows it, e.g. "Urgent"). ``above``/``below``:
    the value is strictly above or below ``threshold``; ``change``: it moved by at
    least ``threshold`` percent (more than 0) since the previous check."""

    widget_id: uuid.UUID
    name: Annotated[
        str | None, Field(max_length=200, description="The widget's title when left out")
    ] = None
    category: Annotated[str | None, Field(max_length=200)] = None
    condition: Literal["above", "below", "change"]
    threshold: Annotated[float, Field(allow_inf_nan=False, ge=-MAX_THRESHOLD, le=MAX_THRESHOLD)]
    interval_minutes: Annotated[
        int, Field(ge=MIN_INTERVAL, le=MAX_INTERVAL, description="5 to 1440")
    ] = DEFAULT_INTERVAL
    notify_resolved: bool = False
    recipient_ids: Annotated[
        list[uuid.UUID],
        Field(max_length=MAX_RECIPIENTS, description="Other members to mail, besides you"),
    ] = []


class AlertIn(AlertFields):
    """The page's form sends the same fields; its URL names the dashboard."""

    dashboard_id: uuid.UUID


class AlertChange(AlertFields):
    """Every field as the alert should be (what was left out takes its default). The
    dashboard may be named, as at creation, but not changed."""

    dashboard_id: uuid.UUID | None = None


class MuteIn(InputModel):
    """``hour``, ``day``, ``week``, or ``forever`` (until unmuted)."""

    period: Literal["hour", "day", "week", "forever"]


class AlertEventOut(OutputModel):
    at: datetime
    kind: str = Field(description="fired, resolved, paused, error, edited or resumed")
    state: str
    value: float | None
    previous: float | None
    sent_to: list[str] = Field(description="Addresses mailed")
    note: str | None = Field(description="Who was skipped and why, or why nothing was sent")


class AlertOut(OutputModel):
    id: uuid.UUID
    widget_id: uuid.UUID
    name: str
    category: str | None
    condition: str
    threshold: float
    interval_minutes: int
    notify_resolved: bool
    recipient_ids: list[uuid.UUID]
    state: str = Field(description="ok, firing or paused")
    paused_reason: str | None
    last_value: float | None
    last_checked_at: datetime | None
    last_error: str | None
    next_check_at: datetime | None = Field(description="UTC; null while paused")
    muted: bool
    muted_until: datetime | None = Field(description="null with muted: until unmuted")
    created_at: datetime


class AlertDetail(AlertOut):
    events: list[AlertEventOut] = Field(description="The newest first (at most 200)")
