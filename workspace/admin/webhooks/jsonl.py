"""The audit log as JSON lines (docs/delivery.md#audit-stream-to-a-siem; the route is
in ``views.py``): one event per line for a time range, for a SIEM's backfill beside
the live stream a ``*`` webhook endpoint gives. The CSV (Settings > Audit log) is for
people; this is for machines: exact UTC instants, ids instead of names, the details
as JSON rather than a cell."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Annotated

from flask import Response
from pydantic import StringConstraints, field_validator

from workspace.core.models import Event
from workspace.errors import ServiceError
from workspace.inputs import QueryModel, field_errors


class AuditRange(QueryModel):
    """``since <= time < until``, ISO 8601 (``2026-11-01`` or ``2026-11-01T08:00:00Z``;
    no offset means UTC); either may be left out. ``kind``: a prefix such as ``scim.``."""

    since: datetime | None = None
    until: datetime | None = None
    kind: Annotated[str, StringConstraints(max_length=64)] | None = None
    actor: uuid.UUID | None = None

    @field_validator("since", "until")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def refused(error: ServiceError):
    lines = "; ".join(f"{k}: {v}" for k, v in field_errors(error).items()) or error.message
    return Response(lines + "\n", status=400, mimetype="text/plain")


def line(event: Event) -> str:
    return json.dumps(
        {
            "id": str(event.id),
            "time": event.created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "kind": event.kind,
            "org_id": str(event.org_id),
            "actor_id": str(event.actor_id) if event.actor_id else None,
            "subject": event.subject,
            "data": event.data or {},
        },
        separators=(",", ":"),
        default=str,
        ensure_ascii=False,
    )
