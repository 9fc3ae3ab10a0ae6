"""Enforced SSO on a verified domain, and the owners who keep a password
(docs/sso.md#enforced-sso). In core because the password and invitation sign-ins
(auth) read them, and the settings (identity) write them."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, select
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.core.models.domains import VerifiedDomain
from workspace.core.models.orgs import OrgMember, OrgRole
from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, uuid_pk


class SsoEnforcement(db.Model):
    """A verified domain whose members sign in only through the org's ``source``.
    Goes with the domain: removing the domain ends it."""

    __tablename__ = "sso_enforcements"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    domain_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("domains.id", ondelete="CASCADE"), unique=True
    )
    #: ``sso`` (the org's OIDC connection) or ``ldap`` (its directory).
    source: Mapped[str] = mapped_column(String(8))
    enforced_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()

    domain: Mapped[VerifiedDomain] = relationship(lazy="joined")


class BreakGlassOwner(db.Model):
    """An owner who keeps password sign-in while SSO is enforced on their domain.
    Counts only while the membership is an active owner."""

    __tablename__ = "break_glass_owners"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    member_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("org_members.id", ondelete="CASCADE"), unique=True
    )
    chosen_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    member: Mapped[OrgMember] = relationship(lazy="joined")

    @property
    def effective(self) -> bool:
        """Whether it still opens anything: an active owner's."""
        return self.member.active and OrgRole(self.member.role) == OrgRole.OWNER


def enforcement_for_domain(org_id: uuid.UUID, domain: str) -> SsoEnforcement | None:
    """The org's enforcement on ``domain`` (normalized), if SSO is enforced there."""
    return db.session.scalar(
        select(SsoEnforcement)
        .join(VerifiedDomain, VerifiedDomain.id == SsoEnforcement.domain_id)
        .where(SsoEnforcement.org_id == org_id, VerifiedDomain.domain == domain)
    )


def break_glass_owners(org_id: uuid.UUID) -> list[BreakGlassOwner]:
    return list(
        db.session.scalars(
            select(BreakGlassOwner)
            .where(BreakGlassOwner.org_id == org_id)
            .order_by(BreakGlassOwner.created_at)
        )
    )


def break_glass_of(org_id: uuid.UUID, account_id: uuid.UUID) -> BreakGlassOwner | None:
    return db.session.scalar(
        select(BreakGlassOwner)
        .join(OrgMember, OrgMember.id == BreakGlassOwner.member_id)
        .where(BreakGlassOwner.org_id == org_id, OrgMember.account_id == account_id)
    )
