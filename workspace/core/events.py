"""Recording the org's audit trail. Callers commit with the change they record."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from workspace.core.models import Event
from workspace.extensions import db


def record_event(
    org_id: uuid.UUID,
    kind: str,
    *,
    actor_id: uuid.UUID | None = None,
    subject: str | None = None,
    **data: Any,
) -> Event:
    event = Event(org_id=org_id, kind=kind, actor_id=actor_id, subject=subject, data=data)
    db.session.add(event)
    return event


def list_events(
    org_id: uuid.UUID, *, kind_prefix: str | None = None, limit: int = 100, offset: int = 0
) -> list[Event]:
    query = select(Event).where(Event.org_id == org_id)
    if kind_prefix:
        query = query.where(Event.kind.startswith(kind_prefix, autoescape=True))
    query = query.order_by(Event.created_at.desc(), Event.id).limit(limit).offset(offset)
    return list(db.session.scalars(query))
