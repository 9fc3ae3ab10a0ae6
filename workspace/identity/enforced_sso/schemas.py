"""JSON shapes of the enforced-SSO routes (docs/sso.md#enforced-sso)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from workspace.inputs import InputModel, OutputModel, QueryModel

Source = Literal["sso", "ldap"]


class EnforcementPreviewQuery(QueryModel):
    #: Which source people would be sent to; absent: SSO when available, else LDAP.
    source: Source | None = None


class EnforcementIn(InputModel):
    source: Source | None = None
    #: True once the preview was seen: enforcing locks its people out of passwords.
    #: Required, so that a client states it; false is refused with the preview's counts.
    confirm: bool


class EnforcementForm(EnforcementIn):
    """The settings page's confirm step: its box, unticked, reads as false."""


class PersonOut(OutputModel):
    email: str
    name: str
    member_id: uuid.UUID
    active: bool
    expires_at: datetime | None = None


class EnforcementPreviewOut(OutputModel):
    domain: str
    source: str
    locked_out: list[PersonOut]
    pending_invitations: list[PersonOut]
    kept: list[PersonOut]


class DomainEnforcementOut(OutputModel):
    domain_id: uuid.UUID
    domain: str
    enforced: bool
    source: str | None
    enforced_at: datetime | None
    available_sources: list[str]


class BreakGlassOut(OutputModel):
    member_id: uuid.UUID
    email: str
    effective: bool
    last_used_at: datetime | None


class EnforcedSsoOut(OutputModel):
    domains: list[DomainEnforcementOut]
    break_glass: list[BreakGlassOut]


class BreakGlassForm(InputModel):
    #: Ticked: the owner keeps password sign-in under enforced SSO.
    keep: bool = False
