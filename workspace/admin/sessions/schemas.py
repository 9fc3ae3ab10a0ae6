"""Shapes of the session policy and the session lists (docs/security.md#sessions),
shared by the pages (``parse_form``) and the JSON API."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import computed_field
from ua_parser import parse as parse_user_agent

from workspace.inputs import InputModel, OutputModel


class SessionPolicyIn(InputModel):
    """Blank or null: the service's default lifetime, and no idle limit. The bounds
    are checked by the service, so the message names them."""

    max_lifetime_hours: int | None = None
    idle_timeout_minutes: int | None = None


class SessionPolicyOut(OutputModel):
    max_lifetime_hours: int | None
    idle_timeout_minutes: int | None
    #: The service's own maximum, in hours: the policy only shortens it.
    default_max_lifetime_hours: int


class SessionOut(OutputModel):
    id: uuid.UUID
    #: password, sso, ldap, invite.
    method: str
    user_agent: str | None
    created_at: datetime
    last_seen_at: datetime | None
    expires_at: datetime
    idle_timeout_minutes: int | None
    #: The session this request came with.
    current: bool = False

    @computed_field
    @property
    def device(self) -> str:
        """What a person recognises ("Firefox 139 on Windows"), read from the user
        agent by ua-parser's maintained rules rather than by our own patterns."""
        if not self.user_agent:
            return "Unknown device"
        found = parse_user_agent(self.user_agent)
        browser = found.user_agent
        system = found.os
        if browser is None and system is None:
            return self.user_agent[:60]
        name = f"{browser.family} {browser.major}".strip() if browser else "A browser"
        if browser and browser.major is None:
            name = browser.family
        return f"{name} on {system.family}" if system else name


class SignedOutOut(OutputModel):
    #: How many sessions were open and are now ended.
    sessions_ended: int
