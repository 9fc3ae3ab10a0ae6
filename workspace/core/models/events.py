from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import created_at_column, uuid_pk


class Event(db.Model):
    """The org's audit trail: sign-ins, SCIM provisioning, sync changes, settings."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_org_created", "org_id", "created_at"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    #: Dotted name such as ``scim.user.provisioned`` or ``auth.login``.
    kind: Mapped[str] = mapped_column(String(64))
    #: Account that caused it; null for the IdP or the system.
    actor_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: What the event is about (member id, domain, mapping id), as text.
    subject: Mapped[str | None] = mapped_column(String(320))
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = created_at_column()
