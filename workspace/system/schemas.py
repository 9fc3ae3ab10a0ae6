"""The System page's one form: discarding a dead job, which asks first."""

from __future__ import annotations

from pydantic import BaseModel


class DiscardForm(BaseModel):
    #: Sent by the confirmation page's button; without it the page asks first.
    confirm: bool = False
