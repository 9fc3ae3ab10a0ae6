"""Email domains an org claims (docs/domains.md). The table lives in core because
every identity source (SSO, LDAP in identity; SCIM beside it) checks the same list:
an org's sources are trusted only for the domains it has verified."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, select, text
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class DomainState(StrEnum):
    PENDING = "pending"
    VERIFIED = "verified"


class VerifiedDomain(db.Model):
    """An email domain an org claims; verified once its TXT record is seen."""

    __tablename__ = "domains"
    __table_args__ = (
        UniqueConstraint("org_id", "domain"),
        # At most one org can hold a domain verified: the database enforces it, so two
        # orgs verifying at the same moment cannot both win.
        Index(
            "uq_domains_verified_domain",
            "domain",
            unique=True,
            sqlite_where=text("state = 'verified'"),
            postgresql_where=text("state = 'verified'"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: Normalized: lowercase, IDNA (punycode), no scheme, path or trailing dot.
    domain: Mapped[str] = mapped_column(String(253))
    state: Mapped[str] = mapped_column(String(16), default=DomainState.PENDING)
    #: Random, unique; the TXT record holds ``service-verify=<token>``.
    verification_token: Mapped[str] = mapped_column(String(64), unique=True)
    verified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()

    @property
    def txt_value(self) -> str:
        return f"service-verify={self.verification_token}"


def verified_domain_names(org_id: uuid.UUID) -> set[str]:
    """The domains this org has verified: the only ones its IdP or directory is
    trusted for (docs/security.md#identity-trust)."""
    return set(
        db.session.scalars(
            select(VerifiedDomain.domain).where(
                VerifiedDomain.org_id == org_id, VerifiedDomain.state == DomainState.VERIFIED
            )
        )
    )


def verifying_org(domain: str) -> uuid.UUID | None:
    """The org that has verified this domain, if any (at most one: docs/domains.md)."""
    return db.session.scalar(
        select(VerifiedDomain.org_id).where(
            VerifiedDomain.domain == domain, VerifiedDomain.state == DomainState.VERIFIED
        )
    )
