"""What the webhook requests send and answer; the pages' forms are the same models
(docs/delivery.md#webhooks). No output model has a field for a secret except the
two answers that show it once: creation and rotation."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from pydantic import Field

from workspace.delivery.webhooks.service import MAX_DESCRIPTION, MAX_URL
from workspace.inputs import NOT_BLANK, InputModel, OutputModel

#: At least one, which the service says in its words beside the checkboxes
#: ("Choose at least one event to send"), as it does for a wrong URL in the same form.
Kinds = Annotated[
    list[Annotated[str, Field(max_length=64)]],
    Field(max_length=50, examples=[["scim.user.provisioned", "task.*"]]),
    NOT_BLANK,
]


class EndpointIn(InputModel):
    """``url``: https (http only for a host in OUTBOUND_ALLOW_PRIVATE), never a private
    address. ``kinds``: exact kinds, groups such as ``member.*``, or ``*``."""

    url: str = Field(min_length=1, max_length=MAX_URL, examples=["https://hooks.example.com/ws"])
    description: str = Field("", max_length=MAX_DESCRIPTION)
    kinds: Kinds


class EndpointEdit(EndpointIn):
    """The endpoint page's settings form: every field sent, kinds a required list (a
    form's repeated ``kinds`` boxes)."""


class EndpointPatch(InputModel):
    url: str | None = Field(None, min_length=1, max_length=MAX_URL)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION)
    kinds: Kinds | None = None
    active: bool | None = Field(
        None, description="false disables; true enables and clears the failure count"
    )


class EndpointOut(OutputModel):
    id: uuid.UUID
    url: str
    description: str
    kinds: list[str]
    active: bool
    disabled_reason: str | None
    consecutive_failures: int
    previous_until: datetime | None = Field(
        description="Until when the previous secret still signs (after a rotation)"
    )
    created_at: datetime


class EndpointWithSecret(EndpointOut):
    secret: str = Field(description="whsec_…: shown this once; store it now")


class DeliveryOut(OutputModel):
    id: uuid.UUID
    message_id: str = Field(description="The webhook-id header")
    kind: str
    status: str = Field(description="pending, delivered or failed")
    attempts: int
    next_attempt_at: datetime | None
    last_attempt_at: datetime | None
    response_status: int | None
    response_ms: int | None
    response_body: str | None = Field(description="The first 2 KiB of the last answer's body")
    error: str | None
    created_at: datetime
    delivered_at: datetime | None


class DeliveryDetail(DeliveryOut):
    payload: str = Field(description="The exact body sent and signed")


class ConfirmForm(InputModel):
    #: Sent by the confirmation page's button; without it the page asks first.
    confirm: bool = False
