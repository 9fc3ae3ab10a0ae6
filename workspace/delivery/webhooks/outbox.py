"""The transactional outbox (docs/delivery.md#webhooks#how-a-delivery-is-made): a
``before_flush`` listener sees the audit events and task history rows a flush is about
to write, and adds a delivery per matching active endpoint to the same flush, so a
webhook exists exactly when its event does. ``core`` records events without knowing of
webhooks (it sits below delivery); this listener, registered by ``init_app``, looks up.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from workspace.core.models import Event, Task, TaskActivity
from workspace.delivery.webhooks.kinds import matches
from workspace.delivery.webhooks.models import WebhookEndpoint
from workspace.types import utcnow

#: A body over this many bytes keeps its identifiers and loses its details.
DEFAULT_MAX_PAYLOAD = 64 * 1024


def install() -> None:
    if not event.contains(Session, "before_flush", _before_flush):
        event.listen(Session, "before_flush", _before_flush)


def _before_flush(session: Session, flush_context: Any, instances: Any) -> None:
    if not has_app_context():
        return
    events: list[Event] = []
    task_changes: dict[uuid.UUID, list[TaskActivity]] = defaultdict(list)
    for obj in session.new:
        if isinstance(obj, Event):
            events.append(obj)
        elif isinstance(obj, TaskActivity):
            task_changes[obj.task_id].append(obj)
    orgs = {e.org_id for e in events} | {rows[0].org_id for rows in task_changes.values()}
    if not orgs:
        return
    with session.no_autoflush:
        # Endpoints first: most orgs have none, and then no message is built (a task
        # change's message reads the task and its states).
        endpoints = session.scalars(
            select(WebhookEndpoint).where(
                WebhookEndpoint.org_id.in_(list(orgs)), WebhookEndpoint.active.is_(True)
            )
        ).all()
        if not endpoints:
            return
        from workspace.delivery.webhooks import sending  # sending imports the models

        listening = {e.org_id for e in endpoints}
        messages: dict[uuid.UUID, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
        for row in events:
            if row.org_id in listening:
                messages[row.org_id].append(_from_event(row))
        for rows in task_changes.values():
            if rows[0].org_id in listening:
                messages[rows[0].org_id].append(_from_task(session, rows))
        for endpoint in endpoints:
            for message_id, kind, payload in messages[endpoint.org_id]:
                if matches(endpoint.kinds, kind):
                    sending.add_delivery(session, endpoint, message_id, kind, payload)


def _from_event(row: Event) -> tuple[str, str, dict[str, Any]]:
    # Ids and times are normally filled at insert; the message needs them now.
    row.id = row.id or uuid.uuid4()
    row.created_at = row.created_at or utcnow()
    data = {
        "event_id": str(row.id),
        "org_id": str(row.org_id),
        "actor_id": str(row.actor_id) if row.actor_id else None,
        "subject": row.subject,
        "details": row.data or {},
    }
    return f"msg_{row.id.hex}", row.kind, envelope(row.kind, row.created_at, data)


def _from_task(session: Session, rows: list[TaskActivity]) -> tuple[str, str, dict[str, Any]]:
    fields = [r.field for r in rows]
    kind = next(
        (f"task.{field}" for field in ("created", "deleted", "restored") if field in fields),
        "task.updated",
    )
    first = rows[0]
    first.id = first.id or uuid.uuid4()
    at = first.created_at or utcnow()
    task = session.identity_map.get(session.identity_key(Task, first.task_id))
    data: dict[str, Any] = {
        "task_id": str(first.task_id),
        "org_id": str(first.org_id),
        "actor_id": str(first.actor_id) if first.actor_id else None,
    }
    if task is not None:
        data.update(project_id=str(task.project_id), sequence=task.sequence, title=task.title)
    if kind == "task.updated":
        data["changes"] = [{"field": r.field, "old": r.old_value, "new": r.new_value} for r in rows]
    return f"msg_{first.id.hex}", kind, envelope(kind, at, data)


def envelope(kind: str, at: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The Standard Webhooks payload shape: type, timestamp, data."""
    return {"type": kind, "timestamp": at.isoformat().replace("+00:00", "Z"), "data": data}


def body(payload: dict[str, Any]) -> str:
    """The exact text signed and sent, cut to its identifiers when too large."""
    text = json.dumps(payload, separators=(",", ":"), default=str, ensure_ascii=False)
    cap = int(current_app.config.get("WEBHOOKS_MAX_PAYLOAD", DEFAULT_MAX_PAYLOAD))
    if len(text.encode()) <= cap:
        return text
    data = payload.get("data", {})
    kept = {k: v for k, v in data.items() if k.endswith("_id") or k in ("subject", "sequence")}
    kept["truncated"] = True
    return json.dumps({**payload, "data": kept}, separators=(",", ":"), default=str)
