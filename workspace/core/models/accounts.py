from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import created_at_column, uuid_pk

#: The longest account name stored (names from an IdP or directory are fitted to it).
NAME_SIZE = 200


class AccountKind(StrEnum):
    PERSON = "person"
    AGENT = "agent"


class Account(db.Model):
    """A person or an agent. Accounts are global; org membership is separate."""

    __tablename__ = "accounts"

    id: Mapped[uuid.UUID] = uuid_pk()
    #: Always stored lowercased; the identity every sign-in method links on.
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(NAME_SIZE))
    #: Given and family name as the identity source supplied them (SCIM, SSO, LDAP);
    #: None when only a display name is known (docs/scim.md#names).
    given_name: Mapped[str | None] = mapped_column(String(NAME_SIZE))
    family_name: Mapped[str | None] = mapped_column(String(NAME_SIZE))
    email_verified: Mapped[bool] = mapped_column(default=False)
    #: Only for local sign-in; SSO, LDAP and SCIM accounts have none.
    password_hash: Mapped[str | None] = mapped_column(String(255))
    #: person or agent (:class:`AccountKind`).
    kind: Mapped[str] = mapped_column(String(16), default=AccountKind.PERSON)
    description: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = created_at_column()

    @property
    def is_agent(self) -> bool:
        return self.kind == AccountKind.AGENT

    def __repr__(self) -> str:
        return f"<Account {self.email}>"
