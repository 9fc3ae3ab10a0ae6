"""Inviting a person by email without mail delivery (docs/admin.md#invitations).

The admin's invitation makes the account (when new) and the membership at once, and,
for an account that has no other way in, a one-time sign-in link: the raw token is
shown once to the admin, who sends it; only its SHA-256 is stored
(:class:`SignInLink`). Opening the link signs the person in once, and lets them choose
a password when they have none.

A link never signs in an account that has a life of its own (a password, another
org's membership or identity source): that would hand this org's admin a key to it.
Such a person is still made a member and signs in the way they already do.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app, has_app_context
from sqlalchemy import exists, select, update

from workspace.auth.login import complete_login
from workspace.auth.models import AccountIdentityLink, SignInLink
from workspace.auth.passwords import MIN_LENGTH, set_password
from workspace.core import accounts
from workspace.core.events import record_event
from workspace.core.models import Account, Org, OrgMember, OrgRole
from workspace.errors import ConflictError, ForbiddenError, ServiceError
from workspace.extensions import db
from workspace.security import tokens
from workspace.types import utcnow

#: How long an invitation link works, unless the app's ``INVITE_LINK_HOURS`` says.
DEFAULT_LIFETIME = timedelta(hours=72)
#: What every link that cannot be used says, whatever the reason (unknown, used,
#: expired, membership ended): nothing more about it leaks.
UNUSABLE = "This link cannot be used."


class DeactivatedMember(ConflictError):
    """The invited email belongs to a deactivated member: offer reactivation."""

    def __init__(self, member: OrgMember) -> None:
        super().__init__(
            f"{member.account.email} is a deactivated member of this organization. "
            "Reactivate them instead of inviting them again.",
            field="email",
        )
        self.member = member


def link_lifetime() -> timedelta:
    """72 hours, or the app's ``INVITE_LINK_HOURS``."""
    hours = current_app.config.get("INVITE_LINK_HOURS") if has_app_context() else None
    return timedelta(hours=float(hours)) if hours else DEFAULT_LIFETIME


@dataclass(frozen=True)
class Invitation:
    member: OrgMember
    #: The raw token, to be shown once; None when the person signs in as they already do.
    token: str | None
    expires_at: datetime | None


def has_own_sign_in(account: Account, org_id: uuid.UUID) -> bool:
    """Whether the account is someone's beyond this org: a password, a membership of
    another org (active or not), or another org's identity source."""
    if account.is_agent or account.password_hash:
        return True
    other_org = select(
        exists().where(OrgMember.account_id == account.id, OrgMember.org_id != org_id)
    )
    other_source = select(
        exists().where(
            AccountIdentityLink.account_id == account.id, AccountIdentityLink.org_id != org_id
        )
    )
    return bool(db.session.scalar(other_org) or db.session.scalar(other_source))


def invite(
    org: Org,
    actor: OrgMember,
    email: str,
    *,
    name: str | None = None,
    role: OrgRole | str = OrgRole.MEMBER,
    lifetime: timedelta | None = None,
) -> Invitation:
    """Invite ``email`` with ``role``: the account (``accounts.ensure_account``) and an
    active membership joined ``via="invite"``, recorded as ``member.invited`` with the
    actor, and a one-time link when the account has no other way in. Only an owner
    invites an owner. An active member is a 409 saying so; a deactivated one is a
    :class:`DeactivatedMember` (409) so the page can offer reactivation."""
    role = OrgRole(role)
    if role == OrgRole.OWNER and OrgRole(actor.role) != OrgRole.OWNER:
        raise ForbiddenError("Only an owner can invite an owner.", field="role")
    email = accounts.canonical_email(email)
    existing = accounts.find_account(email)
    if existing is not None:
        if existing.is_agent:
            raise ServiceError(
                "That address belongs to an agent; agents are added in Settings > Agents.",
                field="email",
            )
        member = db.session.scalar(
            select(OrgMember).where(OrgMember.org_id == org.id, OrgMember.account_id == existing.id)
        )
        if member is not None and member.active:
            raise ConflictError(
                f"{email} is already an active member of this organization.", field="email"
            )
        if member is not None:
            raise DeactivatedMember(member)
    account = accounts.ensure_account(email, name)
    member = accounts.add_member(org, account, role, actor_id=actor.account_id, via="invite")
    raw, expires_at = None, None
    if not has_own_sign_in(account, org.id):
        raw = tokens.generate("")
        expires_at = utcnow() + (lifetime or link_lifetime())
        db.session.add(
            SignInLink(
                token_hash=tokens.digest(raw),
                account_id=account.id,
                org_id=org.id,
                created_by_id=actor.account_id,
                expires_at=expires_at,
            )
        )
    record_event(
        org.id,
        "member.invited",
        actor_id=actor.account_id,
        subject=email,
        member_id=str(member.id),
        role=str(role),
        link=raw is not None,
    )
    db.session.flush()
    return Invitation(member=member, token=raw, expires_at=expires_at)


def usable_link(raw: str | None) -> SignInLink | None:
    """The link a raw token names when it can still be used: known, unused, not
    expired, its membership active and its account still without another way in.
    None otherwise, for every reason alike."""
    if not raw or len(raw) > 200:
        return None
    link = db.session.scalar(select(SignInLink).where(SignInLink.token_hash == tokens.digest(raw)))
    if link is None or link.used_at is not None or link.expires_at <= utcnow():
        return None
    member = db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == link.org_id,
            OrgMember.account_id == link.account_id,
            OrgMember.active.is_(True),
        )
    )
    if member is None or has_own_sign_in(link.account, link.org_id):
        return None
    return link


def use_link(raw: str | None, password: str | None = None) -> Org:
    """Consume the link once and sign its person in (a session with method
    ``invite``), setting their password when they chose one. Atomic: the link is
    marked used by one conditional UPDATE, so of two tabs only one signs in; the
    other gets :data:`UNUSABLE` (a 410). Records ``member.invite_used`` and the
    login. Raises before consuming anything when the password is too short."""
    link = usable_link(raw)
    if link is None:
        raise LinkUnusable()
    if password and len(password) < MIN_LENGTH:
        raise ServiceError(f"A password needs at least {MIN_LENGTH} characters.", field="password")
    now = utcnow()
    claimed = db.session.execute(
        update(SignInLink)
        .where(
            SignInLink.id == link.id,
            SignInLink.used_at.is_(None),
            SignInLink.expires_at > now,
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount
    if claimed != 1:
        raise LinkUnusable()
    account = link.account
    if password:
        set_password(account, password)
    org = db.session.get(Org, link.org_id)
    record_event(
        org.id,
        "member.invite_used",
        actor_id=account.id,
        subject=account.email,
        password_set=bool(password),
    )
    complete_login(org, account, method="invite")
    db.session.flush()
    return org


class LinkUnusable(ServiceError):
    """Unknown, used, expired or no longer valid: one answer for all (410)."""

    status = 410

    def __init__(self) -> None:
        super().__init__(UNUSABLE)
