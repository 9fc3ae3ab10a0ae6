"""Recording the org's audit trail, and reading it back for people (docs/core.md,
"Audit log"). Callers commit with the change they record."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, or_, select

from workspace.core.models import Account, Event
from workspace.extensions import db

#: The CSV export stops here (and says so in its last row).
EXPORT_CAP = 100_000
_EXPORT_BATCH = 1000


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


# -- reading ---------------------------------------------------------------------------


def events_query(
    org_id: uuid.UUID,
    *,
    kind_prefix: str | None = None,
    actor_id: uuid.UUID | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> Select:
    """The org's events, newest first, narrowed by kind prefix (``project.``), the
    account that acted, and ``since <= created_at < until`` (aware or naive UTC)."""
    query = select(Event).where(Event.org_id == org_id)
    if kind_prefix:
        query = query.where(_kind_matches(kind_prefix))
    if actor_id:
        query = query.where(Event.actor_id == actor_id)
    if since is not None:
        query = query.where(Event.created_at >= since)
    if until is not None:
        query = query.where(Event.created_at < until)
    return query.order_by(Event.created_at.desc(), Event.id)


#: Kinds renamed after rows were recorded under the old name (new prefix: old prefix):
#: a filter on the new name finds the old rows too, and they stay as they were written.
RENAMED_KINDS = {"groupsync.mapping.": "sso.mapping."}


def _kind_matches(prefix: str) -> ColumnElement[bool]:
    matches = [Event.kind.startswith(prefix, autoescape=True)]
    for new, old in RENAMED_KINDS.items():
        if prefix.startswith(new):
            matches.append(Event.kind.startswith(old + prefix[len(new) :], autoescape=True))
        elif new.startswith(prefix):
            matches.append(Event.kind.startswith(old, autoescape=True))
    return or_(*matches)


def list_events(
    org_id: uuid.UUID,
    *,
    kind_prefix: str | None = None,
    actor_id: uuid.UUID | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Event]:
    query = events_query(
        org_id, kind_prefix=kind_prefix, actor_id=actor_id, since=since, until=until
    )
    return list(db.session.scalars(query.limit(limit).offset(offset)))


def iter_events(org_id: uuid.UUID, cap: int = EXPORT_CAP, **filters: Any) -> Iterator[Event]:
    """Up to ``cap`` events, fetched a batch at a time (for the streamed CSV)."""
    query = events_query(org_id, **filters)
    offset = 0
    while offset < cap:
        batch = list(
            db.session.scalars(query.limit(min(_EXPORT_BATCH, cap - offset)).offset(offset))
        )
        yield from batch
        if len(batch) < _EXPORT_BATCH:
            return
        offset += len(batch)  # the identity map holds rows weakly: memory stays flat


def kind_prefixes(org_id: uuid.UUID) -> list[str]:
    """The first part of every event kind the org has (``auth``, ``project``, ...)."""
    kinds = db.session.scalars(select(Event.kind).where(Event.org_id == org_id).distinct())
    return sorted({k.split(".", 1)[0] for k in kinds})


def actors(org_id: uuid.UUID) -> list[Account]:
    """The people and agents who appear as the actor of one of the org's events."""
    ids = select(Event.actor_id).where(Event.org_id == org_id, Event.actor_id.is_not(None))
    return list(
        db.session.scalars(
            select(Account).where(Account.id.in_(ids.distinct())).order_by(Account.name)
        )
    )
