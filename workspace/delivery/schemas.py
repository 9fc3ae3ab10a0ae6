"""The mail settings' forms (docs/delivery.md#mail)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from workspace.inputs import InputModel

Security = Literal["none", "starttls", "tls"]


class MailSettingsIn(InputModel):
    host: str = Field(min_length=1, max_length=253, examples=["smtp.example.com"])
    port: int = Field(ge=1, le=65535, examples=[587])
    security: Security = "starttls"
    username: str | None = Field(None, max_length=320)
    password: str | None = Field(
        None, max_length=500, description="Write-only. Blank keeps the stored password."
    )
    from_address: str = Field(min_length=3, max_length=320, examples=["workspace@example.com"])


class TestMailIn(InputModel):
    """Where the test mail goes."""

    to: str = Field(min_length=3, max_length=320, examples=["you@example.com"])


class ConfirmForm(InputModel):
    #: Sent by the confirmation page's button; without it the page asks first.
    confirm: bool = False
