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

from workspace.auth import enforced_sso
from workspace.auth.models import AccountIdentityLink, SignInLink
from workspace.auth.passwords import MIN_LENGTH, set_password
from workspace.auth.signin import SignInRefused
from workspace.core import accounts
from workspace.core.domain_ownership import other_orgs_domain_message, owned_elsewhere, owner_of
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
    #: The membership; None while a *join* link waits for the account's holder.
    member: OrgMember | None
    #: The raw token, to be shown once; None when the person signs in as they already do.
    token: str | None
    expires_at: datetime | None
    #: The invited address, as made canonical.
    email: str = ""

    @property
    def joins_on_proof(self) -> bool:
        """A join link: the person opens it signed in to their account to join."""
        return self.member is None


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


def domain_is_ours(org_id: uuid.UUID, email: str) -> bool:
    owner = owner_of(email)
    return owner is not None and owner.org_id == org_id


def enforced_refusal(usable: UsableLink | None) -> SignInRefused | None:
    """Why a sign-in link may not sign its person in any more: their org now
    enforces SSO on their domain (docs/sso.md#enforced-sso). A join link is not a
    sign-in (its holder signs in their usual way first), so it is never refused here."""
    if usable is None or usable.join:
        return None
    enforced = enforced_sso.enforced_for(usable.account)
    if enforced is None:
        return None
    return enforced_sso.refusal(enforced, usable.account, attempted="invite")


def invite(
    org: Org,
    actor: OrgMember,
    email: str,
    *,
    name: str | None = None,
    role: OrgRole | str = OrgRole.MEMBER,
    lifetime: timedelta | None = None,
) -> Invitation:
    """Invite ``email`` with ``role``, recorded as ``member.invited`` with the actor.
    Only an owner invites an owner. An active member is a 409 saying so; a
    deactivated one is a :class:`DeactivatedMember` (409) so the page can offer
    reactivation. Who the address belongs to decides the rest
    (docs/security.md#verified-domains-own-their-addresses):

    - on a domain another org verified: only an account that proved the address
      joins (no link, they sign in as they do); anything else is refused;
    - an account that has its own way in but never proved the address, on a domain
      this org verified: no membership yet, but a *join* link that its holder opens
      signed in to that account (the link, which this org sends to its own mailbox,
      proves the address; the sign-in proves the account);
    - otherwise the account (``accounts.ensure_account``) and an active membership
      joined ``via="invite"``, and a one-time sign-in link when the account has no
      other way in."""
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
    other_orgs = owned_elsewhere(org.id, email)
    elsewhere = other_orgs is not None
    if elsewhere and (existing is None or not existing.email_verified):
        raise ForbiddenError(
            other_orgs_domain_message(email, other_orgs)
            + " Invite them once they have signed in through that organization.",
            field="email",
        )
    ours = not elsewhere and domain_is_ours(org.id, email)
    if (
        ours
        and existing is not None
        and not existing.email_verified
        and has_own_sign_in(existing, org.id)
    ):
        raw, expires_at = new_link(existing, org, actor, lifetime)
        # A join link carries no role: the person joins as a member, and an admin
        # gives them another role once they have joined.
        _record_invited(org, actor, email, None, OrgRole.MEMBER, link="join")
        return Invitation(member=None, token=raw, expires_at=expires_at, email=email)
    account = accounts.ensure_account(email, name)
    member = accounts.add_member(org, account, role, actor_id=actor.account_id, via="invite")
    raw, expires_at = None, None
    # Under enforced SSO the person signs in through the org's SSO: no link to refuse later.
    if (
        not elsewhere
        and not has_own_sign_in(account, org.id)
        and enforced_sso.enforced_for(account) is None
    ):
        raw, expires_at = new_link(account, org, actor, lifetime)
    _record_invited(org, actor, email, member, role, link=raw is not None)
    db.session.flush()
    return Invitation(member=member, token=raw, expires_at=expires_at, email=email)


def new_link(
    account: Account, org: Org, actor: OrgMember, lifetime: timedelta | None
) -> tuple[str, datetime]:
    """A one-time sign-in link into ``org`` for ``account`` (the raw token, shown once,
    and when it expires); the invite flow's, and the members page's resend."""
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
    db.session.flush()
    return raw, expires_at


def _record_invited(
    org: Org, actor: OrgMember, email: str, member: OrgMember | None, role: OrgRole, link
) -> None:
    record_event(
        org.id,
        "member.invited",
        actor_id=actor.account_id,
        subject=email,
        member_id=str(member.id) if member is not None else None,
        role=str(role),
        link=link,
    )


@dataclass(frozen=True)
class UsableLink:
    row: SignInLink
    #: A join link: no membership yet; its holder opens it signed in to the account.
    join: bool

    @property
    def account(self) -> Account:
        return self.row.account

    @property
    def org_id(self) -> uuid.UUID:
        return self.row.org_id

    @property
    def expires_at(self) -> datetime:
        return self.row.expires_at


def usable_link(raw: str | None) -> UsableLink | None:
    """The link a raw token names when it can still be used: known, unused, not
    expired, and either a sign-in link (its membership active, its account still
    without another way in) or a join link (no membership yet, the account has its
    own way in). None otherwise, for every reason alike."""
    if not raw or len(raw) > 200:
        return None
    link = db.session.scalar(select(SignInLink).where(SignInLink.token_hash == tokens.digest(raw)))
    if link is None or link.used_at is not None or link.expires_at <= utcnow():
        return None
    member = db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == link.org_id, OrgMember.account_id == link.account_id
        )
    )
    own_sign_in = has_own_sign_in(link.account, link.org_id)
    if member is None and own_sign_in:
        return UsableLink(link, join=True)
    if member is None or not member.active or own_sign_in:
        return None
    return UsableLink(link, join=False)


def use_link(
    raw: str | None, password: str | None = None, *, signed_in: Account | None = None
) -> tuple[Org, Account | None]:
    """Consume the link once. Returns the org and, for a sign-in link, the account
    the caller signs in (``finish`` with method ``invite``), having set its password
    when they chose one; None for a join link, which needs ``signed_in`` to be its
    account and makes it a member. Atomic: the link is marked used by one conditional
    UPDATE, so of two tabs only one succeeds; the other gets :data:`UNUSABLE` (a 410).
    Records ``member.invite_used``. Refuses (:class:`SignInRefused`) before consuming
    anything when the password is too short or the wrong account is signed in; a link
    that cannot be used is ``link_unusable`` (410), whatever the reason.
    Opening a link of the org that verified the address's domain proves the address:
    the account is marked email-verified."""
    unusable = SignInRefused(UNUSABLE, reason="link_unusable", status=410)
    usable = usable_link(raw)
    if usable is None:
        raise unusable
    enforced = enforced_refusal(usable)
    if enforced is not None:
        raise enforced
    link = usable.row
    if usable.join and (signed_in is None or signed_in.id != link.account_id):
        raise SignInRefused(
            f"Sign in to {link.account.email} first, the way you usually sign in to it, "
            "then open this link again.",
            reason="sign_in_first",
            status=401,
        )
    if password and not usable.join and len(password) < MIN_LENGTH:
        raise SignInRefused(
            f"A password needs at least {MIN_LENGTH} characters.",
            reason="short_password",
            status=400,
        )
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
        raise unusable
    account = link.account
    org = db.session.get(Org, link.org_id)
    if domain_is_ours(org.id, account.email):
        account.email_verified = True
    if usable.join:
        accounts.add_member(org, account, OrgRole.MEMBER, actor_id=account.id, via="invite")
    elif password:
        set_password(account, password)
    record_event(
        org.id,
        "member.invite_used",
        actor_id=account.id,
        subject=account.email,
        password_set=bool(password) and not usable.join,
        joined=usable.join,
    )
    db.session.flush()
    return org, None if usable.join else account
