"""The instance's SMTP settings (one row) and the outbox (docs/delivery.md#mail)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk

#: ``security`` values: plain SMTP, STARTTLS after EHLO, or TLS from the first byte.
SECURITY_MODES = ("none", "starttls", "tls")


class MailSettings(db.Model):
    """Where the instance sends mail. No row (the ``make run`` default): the outbox."""

    __tablename__ = "mail_settings"

    id: Mapped[uuid.UUID] = uuid_pk()
    host: Mapped[str] = mapped_column(String(253))
    port: Mapped[int] = mapped_column(Integer)
    security: Mapped[str] = mapped_column(String(16), default="starttls")
    username: Mapped[str | None] = mapped_column(String(320))
    #: The SMTP password, sealed with this row's id (docs/security.md); never shown.
    password_sealed: Mapped[str | None] = mapped_column(Text)
    from_address: Mapped[str] = mapped_column(String(320))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    @property
    def has_password(self) -> bool:
        return bool(self.password_sealed)

    def __repr__(self) -> str:  # never the password
        return f"<MailSettings {self.host}:{self.port} {self.security}>"


class OutboxMail(db.Model):
    """A mail the instance would have sent, kept for its operators to read."""

    __tablename__ = "mail_outbox"
    __table_args__ = (Index("ix_mail_outbox_created", "created_at"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    created_at: Mapped[datetime] = created_at_column()
    from_address: Mapped[str] = mapped_column(String(320))
    #: The recipients, comma-separated.
    to: Mapped[str] = mapped_column(Text)
    subject: Mapped[str] = mapped_column(String(998))
    text: Mapped[str] = mapped_column(Text)
    html: Mapped[str | None] = mapped_column(Text)
    #: Attachments' names, types and sizes (``name (type, N bytes)``, one per line):
    #: the outbox keeps what was attached, not the bytes.
    attachments: Mapped[str | None] = mapped_column(Text)
    #: The whole mail's size as it would have gone out, in bytes.
    size: Mapped[int] = mapped_column(Integer, default=0)
