"""JSON shapes of the domain routes (DESIGN §4)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from workspace.api.models import InputModel, OutputModel
from workspace.identity.domains.models import VerifiedDomain


class DomainCreate(InputModel):
    #: A domain, URL or email address; normalized by the service.
    domain: str = Field(max_length=400)


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
