"""Reading and clearing the outbox (docs/delivery.md#the-outbox); ``mail`` writes it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import delete, func, select

from workspace.delivery.models import OutboxMail
from workspace.errors import NotFoundError
from workspace.extensions import db


def count() -> int:
    return db.session.scalar(select(func.count()).select_from(OutboxMail)) or 0


def newest(limit: int) -> Sequence[OutboxMail]:
    return db.session.scalars(
        select(OutboxMail).order_by(OutboxMail.created_at.desc(), OutboxMail.id).limit(limit)
    ).all()


def get(mail_id: uuid.UUID) -> OutboxMail:
    row = db.session.get(OutboxMail, mail_id)
    if row is None:
        raise NotFoundError("No such mail in the outbox.")
    return row


def clear() -> int:
    """Delete every outbox mail; how many there were."""
    deleted = db.session.execute(delete(OutboxMail)).rowcount or 0
    db.session.flush()
    return deleted
