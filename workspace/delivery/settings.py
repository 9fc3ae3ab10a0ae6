"""The instance's SMTP settings: read, save (password sealed, blank keeps), remove
(docs/delivery.md#mail). Services flush, never commit."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select

from workspace.core.accounts import canonical_email
from workspace.delivery.models import MailSettings
from workspace.delivery.schemas import MailSettingsIn
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.crypto import SecretUnreadable, seal, unseal


@dataclass(frozen=True)
class Smtp:
    """What one connection needs, the password already unsealed (never logged)."""

    host: str
    port: int
    security: str
    username: str | None
    password: str
    from_address: str

    def __repr__(self) -> str:  # never the password
        return f"Smtp({self.host}:{self.port} {self.security})"


def current() -> MailSettings | None:
    return db.session.scalar(select(MailSettings).limit(1))


def check_address(raw: str, field: str) -> str:
    """One mailbox, refused with a 400 on ``field`` when it is not one."""
    if "," in raw or "<" in raw or ">" in raw:
        raise ServiceError("Enter one address, as in name@example.com.", field=field)
    return canonical_email(raw, field=field)


def _check_host(host: str) -> str:
    host = host.strip().rstrip(".")
    if not host or any(ch.isspace() or not ch.isprintable() or ch in "/:@" for ch in host):
        raise ServiceError("Enter a host name or address, as in smtp.example.com.", field="host")
    return host


def save(data: MailSettingsIn) -> MailSettings:
    """Create or replace the settings; a blank password keeps the stored one."""
    host = _check_host(data.host)
    from_address = check_address(data.from_address, "from_address")
    row = current()
    if row is None:
        # The id is the sealing's associated data, so it must exist before sealing.
        row = MailSettings(id=uuid.uuid4())
        db.session.add(row)
    row.host, row.port, row.security = host, data.port, data.security
    row.username = (data.username or "").strip() or None
    row.from_address = from_address
    if data.password:
        row.password_sealed = seal(data.password, row.id)
    if row.username is None:
        row.password_sealed = None  # no user, no password to keep
    db.session.flush()
    return row


def remove() -> bool:
    """Forget the settings: mail goes to the outbox again."""
    row = current()
    if row is None:
        return False
    db.session.delete(row)
    db.session.flush()
    return True


def smtp(row: MailSettings) -> Smtp:
    password = ""
    if row.password_sealed:
        try:
            password = unseal(row.password_sealed, row.id)
        except SecretUnreadable:
            password = ""  # key rotated: the server's refusal says so
    return Smtp(row.host, row.port, row.security, row.username, password, row.from_address)
