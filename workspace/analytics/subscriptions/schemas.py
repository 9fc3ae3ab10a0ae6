"""What a subscription request sends and answers; the page's form is the same model."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from workspace.inputs import InputModel, OutputModel, QueryModel

#: PQL of a subscription: the dashboards' own bound.
MAX_PQL = 2000


class DashboardSubscriptionIn(InputModel):
    """A schedule in the org's time zone. ``weekday`` is needed for weekly (0 Monday to
    6 Sunday), ``day_of_month`` for monthly (1 to 31; a shorter month sends on its
    last day). ``account_id``: whom to subscribe, yourself when left out; someone else
    takes the right to edit the dashboard."""

    frequency: Literal["daily", "weekly", "monthly"]
    hour: Annotated[int, Field(ge=0, le=23, description="0 to 23, org time zone")]
    weekday: Annotated[int | None, Field(ge=0, le=6)] = None
    day_of_month: Annotated[int | None, Field(ge=1, le=31)] = None
    pql_filter: Annotated[str | None, Field(max_length=MAX_PQL)] = None
    account_id: uuid.UUID | None = None


class SubscriptionForm(DashboardSubscriptionIn):
    """The page's form: the schedule, and whose subscription the form was loaded with
    (none: a blank form). Someone picked as recipient who has a subscription the form
    was not loaded with is asked about, not replaced unseen (service.subscribe)."""

    loaded_for: uuid.UUID | None = None


class SubscriptionPageQuery(QueryModel):
    #: Whose subscription the form holds (a row's Edit); the caller's own without.
    recipient: uuid.UUID | None = None


class SubscriptionSendOut(OutputModel):
    id: uuid.UUID
    trigger: str
    due_at: datetime
    status: str
    reason: str | None
    attempts: int
    finished_at: datetime | None


class DashboardSubscriptionOut(OutputModel):
    id: uuid.UUID
    dashboard_id: uuid.UUID
    account_id: uuid.UUID
    recipient: str = Field(description="The recipient's name")
    frequency: str
    hour: int
    weekday: int | None
    day_of_month: int | None
    pql_filter: str | None
    timezone: str = Field(description="The org's time zone the hour is in")
    next_send_at: datetime | None = Field(description="UTC; null while paused")
    paused_reason: str | None
    created_at: datetime


class DashboardSubscriptionDetail(DashboardSubscriptionOut):
    sends: list[SubscriptionSendOut] = Field(description="The newest sends first (at most 50)")
