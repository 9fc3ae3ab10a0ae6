"""Requiring SSO on a verified domain, and the owners who keep a password
(docs/sso.md#enforced-sso). Sign-in reads what this writes
(:mod:`workspace.auth.enforced_sso`).

Decisions, tested in tests/identity/enforced_sso:

- Only an owner turns enforcement on or off and names break-glass owners (the
  ``org.enforce_sso`` action); admins see the page.
- Turning it on needs a verified domain, an available source (an enabled SSO
  connection for exactly that domain, or the org's LDAP), a preview, and ``confirm``.
- There is always a way in: enforcing needs at least one break-glass owner who is an
  active owner with a password, and the last such owner cannot be unnamed while any
  domain is enforced. Turning it off is immediate.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from workspace.auth.enforced_sso import SOURCES
from workspace.auth.models import AccountIdentityLink, SignInLink
from workspace.core.accounts import get_member
from workspace.core.emails import email_domain
from workspace.core.events import record_event
from workspace.core.models import Account, OrgMember, OrgRole
from workspace.core.models.domains import DomainState, VerifiedDomain
from workspace.core.models.enforced_sso import (
    BreakGlassOwner,
    SsoEnforcement,
    break_glass_owners,
)
from workspace.errors import ConflictError, ServiceError
from workspace.extensions import db
from workspace.identity.domains.service import get_domain
from workspace.identity.ldap.models import LdapConnection
from workspace.identity.sso.models import SsoConnection
from workspace.security.permissions import Access
from workspace.types import utcnow

NO_BREAK_GLASS = (
    "Name at least one break-glass owner (an owner with a password) first: with SSO "
    "enforced and no break-glass owner, an outage at the identity provider would lock "
    "everyone out."
)
LAST_BREAK_GLASS = (
    "{email} is the last break-glass owner while single sign-on is enforced; name "
    "another one first, or stop enforcing."
)


@dataclass(frozen=True)
class Person:
    email: str
    name: str
    member_id: uuid.UUID
    active: bool = True
    expires_at: datetime | None = None


@dataclass(frozen=True)
class Preview:
    """Who loses password sign-in when SSO is enforced on ``domain`` with ``source``."""

    domain: str
    source: str
    #: Members on the domain with a password and no link to the source.
    locked_out: list[Person] = field(default_factory=list)
    #: Unused sign-in links of invitations to addresses on the domain.
    pending_invitations: list[Person] = field(default_factory=list)
    #: Break-glass owners on the domain: they keep their password.
    kept: list[Person] = field(default_factory=list)


@dataclass(frozen=True)
class DomainStatus:
    domain: VerifiedDomain
    enforcement: SsoEnforcement | None
    sources: list[str]


def available_sources(org_id: uuid.UUID, domain: str) -> list[str]:
    """The org's sources that can sign in addresses on ``domain``."""
    found = []
    sso = db.session.scalar(
        select(SsoConnection.id).where(
            SsoConnection.org_id == org_id,
            SsoConnection.enabled.is_(True),
            SsoConnection.email_domain == domain,
        )
    )
    if sso is not None:
        found.append("sso")
    if db.session.scalar(select(LdapConnection.id).where(LdapConnection.org_id == org_id)):
        found.append("ldap")
    return found


def overview(org_id: uuid.UUID) -> list[DomainStatus]:
    """Every verified domain of the org with its enforcement and available sources."""
    domains = db.session.scalars(
        select(VerifiedDomain)
        .where(VerifiedDomain.org_id == org_id, VerifiedDomain.state == DomainState.VERIFIED)
        .order_by(VerifiedDomain.domain)
    )
    enforced = {
        e.domain_id: e
        for e in db.session.scalars(select(SsoEnforcement).where(SsoEnforcement.org_id == org_id))
    }
    return [
        DomainStatus(d, enforced.get(d.id), available_sources(org_id, d.domain)) for d in domains
    ]


def _verified(org_id: uuid.UUID, domain_id: uuid.UUID) -> VerifiedDomain:
    row = get_domain(org_id, domain_id)
    if row.state != DomainState.VERIFIED:
        raise ServiceError(
            f"Verify {row.domain} under Domains before requiring single sign-on for it."
        )
    return row


def _source(org_id: uuid.UUID, domain: str, source: str | None) -> str:
    sources = available_sources(org_id, domain)
    if not sources:
        raise ServiceError(
            f"Set up single sign-on for {domain} (enabled, under Single sign-on) or LDAP "
            "first: enforcing needs a way for its people to sign in."
        )
    if source is None:
        return sources[0]
    if source not in sources:
        raise ServiceError(
            f"{source.upper()} cannot sign in {domain} addresses here; choose "
            + " or ".join(s.upper() for s in sources)
            + ".",
            field="source",
        )
    return source


def _on_domain(email: str, domain: str) -> bool:
    try:
        return email_domain(email) == domain
    except ServiceError:
        return False


def preview(org_id: uuid.UUID, domain_id: uuid.UUID, source: str | None = None) -> Preview:
    """Who would lose password sign-in; nothing is written."""
    row = _verified(org_id, domain_id)
    source = _source(org_id, row.domain, source)
    members = [
        m
        for m in db.session.scalars(
            select(OrgMember)
            .join(Account, Account.id == OrgMember.account_id)
            .where(OrgMember.org_id == org_id, Account.email.ilike(f"%@{row.domain}"))
            .order_by(Account.email)
        )
        if _on_domain(m.account.email, row.domain)
    ]
    linked = set(
        db.session.scalars(
            select(AccountIdentityLink.account_id).where(
                AccountIdentityLink.org_id == org_id, AccountIdentityLink.source == source
            )
        )
    )
    glass = {b.member_id for b in break_glass_owners(org_id) if b.effective}
    locked, kept, ids = [], [], set()
    for m in members:
        ids.add(m.account_id)
        person = Person(m.account.email, m.account.name, m.id, m.active)
        if m.id in glass:
            kept.append(person)
        elif m.account.password_hash and m.account_id not in linked:
            locked.append(person)
    members_by_account = {m.account_id: m for m in members}
    links = db.session.scalars(
        select(SignInLink)
        .where(
            SignInLink.org_id == org_id,
            SignInLink.used_at.is_(None),
            SignInLink.expires_at > utcnow(),
            SignInLink.account_id.in_(ids),
        )
        .order_by(SignInLink.created_at)
    )
    pending = [
        Person(
            link.account.email,
            link.account.name,
            members_by_account[link.account_id].id,
            expires_at=link.expires_at,
        )
        for link in links
    ]
    return Preview(row.domain, source, locked, pending, kept)


def _effective_break_glass(org_id: uuid.UUID) -> list[BreakGlassOwner]:
    return [b for b in break_glass_owners(org_id) if b.effective and b.member.account.password_hash]


def enforce(
    access: Access, domain_id: uuid.UUID, source: str | None, *, confirm: bool
) -> tuple[SsoEnforcement, Preview]:
    """Require SSO on the domain once ``confirm`` says the preview was seen."""
    shown = preview(access.org.id, domain_id, source)
    row = _verified(access.org.id, domain_id)
    existing = db.session.scalar(select(SsoEnforcement).where(SsoEnforcement.domain_id == row.id))
    if existing is not None:
        raise ConflictError(f"Single sign-on is already required for {row.domain}.")
    if not _effective_break_glass(access.org.id):
        raise ConflictError(NO_BREAK_GLASS, field="break_glass")
    if not confirm:
        raise ServiceError(
            f"Review who loses password sign-in ({len(shown.locked_out)} people, "
            f"{len(shown.pending_invitations)} pending invitations), then confirm.",
            field="confirm",
        )
    enforcement = SsoEnforcement(
        org_id=access.org.id,
        domain_id=row.id,
        source=shown.source,
        enforced_by_id=access.account.id,
    )
    db.session.add(enforcement)
    record_event(
        access.org.id,
        "sso.enforced",
        actor_id=access.account.id,
        subject=row.domain,
        source=shown.source,
        locked_out=len(shown.locked_out),
        pending_invitations=len(shown.pending_invitations),
    )
    db.session.flush()
    return enforcement, shown


def stop(access: Access, domain_id: uuid.UUID) -> bool:
    """Password sign-in works again for the domain at once. False when not enforced."""
    row = get_domain(access.org.id, domain_id)
    existing = db.session.scalar(select(SsoEnforcement).where(SsoEnforcement.domain_id == row.id))
    if existing is None:
        return False
    db.session.delete(existing)
    record_event(
        access.org.id, "sso.enforcement_ended", actor_id=access.account.id, subject=row.domain
    )
    db.session.flush()
    return True


def set_break_glass(access: Access, member_id: uuid.UUID, keep: bool) -> BreakGlassOwner | None:
    """Name (``keep``) or unname an owner as break-glass."""
    member = get_member(access.org.id, member_id)
    row = db.session.scalar(select(BreakGlassOwner).where(BreakGlassOwner.member_id == member.id))
    if keep:
        if not member.active or OrgRole(member.role) != OrgRole.OWNER:
            raise ServiceError(
                f"{member.account.email} is not an active owner; only owners can be break-glass.",
                field="member_id",
            )
        if row is not None:
            return row
        row = BreakGlassOwner(
            org_id=access.org.id, member_id=member.id, chosen_by_id=access.account.id
        )
        db.session.add(row)
        record_event(
            access.org.id,
            "auth.break_glass.named",
            actor_id=access.account.id,
            subject=member.account.email,
        )
        db.session.flush()
        return row
    if row is None:
        return None
    others = [b for b in _effective_break_glass(access.org.id) if b.id != row.id]
    enforced = db.session.scalar(
        select(SsoEnforcement.id).where(SsoEnforcement.org_id == access.org.id)
    )
    if enforced is not None and not others:
        raise ConflictError(LAST_BREAK_GLASS.format(email=member.account.email), field="member_id")
    db.session.delete(row)
    record_event(
        access.org.id,
        "auth.break_glass.unnamed",
        actor_id=access.account.id,
        subject=member.account.email,
    )
    db.session.flush()
    return None


def owners(org_id: uuid.UUID) -> list[OrgMember]:
    """The active owners, who may be named break-glass."""
    return list(
        db.session.scalars(
            select(OrgMember)
            .join(Account, Account.id == OrgMember.account_id)
            .where(
                OrgMember.org_id == org_id,
                OrgMember.active.is_(True),
                OrgMember.role == OrgRole.OWNER,
            )
            .order_by(Account.email)
        )
    )


__all__ = ["SOURCES", "Preview", "enforce", "overview", "preview", "set_break_glass", "stop"]
