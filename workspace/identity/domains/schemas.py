"""JSON shapes of the domain routes (docs/api.md#record-shapes)."""

from __future__ import annotations

import uuid
from datetime import datetime

from workspace.core.models.domains import VerifiedDomain
from workspace.inputs import InputModel, OutputModel, needed


class DomainCreate(InputModel):
    #: A domain, URL or email address; normalized by the service (which also says
    #: what to enter when it is blank).
    domain: str = needed(max_length=400)


class TxtRecordOut(OutputModel):
    name: str = "@"
    value: str


class DomainOut(OutputModel):
    id: uuid.UUID
    domain: str
    state: str
    verification_token: str
    txt_record: TxtRecordOut
    verified_at: datetime | None
    created_at: datetime

    @classmethod
    def of(cls, row: VerifiedDomain) -> DomainOut:
        return cls(
            id=row.id,
            domain=row.domain,
            state=row.state,
            verification_token=row.verification_token,
            txt_record=TxtRecordOut(value=row.txt_value),
            verified_at=row.verified_at,
            created_at=row.created_at,
        )


class DomainVerifyOut(DomainOut):
    #: What happened, in words: verified, or which record to add and wait for.
    message: str
