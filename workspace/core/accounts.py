"""Accounts and org membership: the shared end of every sign-in and provisioning path."""

from __future__ import annotations

import unicodedata
import uuid
from typing import Any

from sqlalchemy import Select, func, or_, select

from workspace.core.emails import normalize_domain
from workspace.core.events import record_event
from workspace.core.models import Account, AccountKind, Org, OrgMember, OrgRole
from workspace.core.models.accounts import NAME_SIZE
from workspace.core.names import clean, complete, join_name
from workspace.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.transaction import lock_row
from workspace.types import utcnow

#: The size of ``Account.email``.
MAX_EMAIL = 320
MAX_LOCAL_PART = 64


def canonical_email(raw: str | None, *, field: str = "email") -> str:
    """The one stored form of an email address (docs/security.md#canonical-emails):
    compatibility forms folded (NFKC: full-width letters and a full-width at sign), the
    local part lowercased, the domain normalized as verified domains are (lowercase,
    no trailing dot, IDNA). Refused with a 400 on ``field``: no @ or more than one,
    control characters or spaces, an empty local part, a domain that is not one.
    Every path that finds or creates an account goes through here, so
    ``dot@initech.example.`` and its full-width spelling are one account."""
    value = unicodedata.normalize("NFKC", (raw or "").strip())
    if not value:
        raise ServiceError("Enter an email address.", field=field)
    if any(not ch.isprintable() or ch.isspace() for ch in value):
        raise ServiceError(
            "An email address cannot contain spaces or control characters.", field=field
        )
    if value.count("@") != 1:
        raise ServiceError(
            "An email address has exactly one @, as in name@example.com.", field=field
        )
    local, domain = value.split("@")
    if not local:
        raise ServiceError("Enter the part before the @ of the email address.", field=field)
    if len(local) > MAX_LOCAL_PART:
        raise ServiceError(
            f"The part before the @ has at most {MAX_LOCAL_PART} characters.", field=field
        )
    if not domain or any(ch in domain for ch in "/:?#[]\\"):
        raise ServiceError(
            "Enter the email's domain after the @, as in name@example.com.", field=field
        )
    email = f"{local.lower()}@{normalize_domain(domain, field=field)}"
    if len(email) > MAX_EMAIL:
        raise ServiceError(f"An email address has at most {MAX_EMAIL} characters.", field=field)
    return email


def find_account(email: str) -> Account | None:
    """The account for an email in any spelling of it; None for no account and for
    text that is not an email address (no account can have it)."""
    try:
        canonical = canonical_email(email)
    except ServiceError:
        return None
    return db.session.scalar(select(Account).where(Account.email == canonical))


def ensure_account(
    email: str,
    name: str | None = None,
    *,
    given_name: str | None = None,
    family_name: str | None = None,
    email_verified: bool = False,
) -> Account:
    """The account for an email, created when absent. Used by JIT sign-in and SCIM.
    An existing account is reused as is (its names too); a verified source may mark
    it verified. A new account keeps the given and family names the source supplied
    (docs/scim.md#names); its display name is ``name``, else those two joined, else
    the email's local part. The email is made canonical first
    (:func:`canonical_email`); one that is not an address is a 400 on ``email``."""
    email = canonical_email(email)
    account = find_account(email)
    if account is None:
        given, family = _fit(given_name), _fit(family_name)
        account = Account(
            email=email,
            name=_fit(name) or _fit(join_name(given, family)) or email.split("@")[0],
            given_name=given,
            family_name=family,
            email_verified=email_verified,
            kind=AccountKind.PERSON,
        )
        db.session.add(account)
        db.session.flush()
    elif email_verified and not account.email_verified:
        account.email_verified = True
    return account


def rename_account(
    account: Account, name: str | None, given_name: str | None, family_name: str | None
) -> None:
    """Name an account as its source now does (docs/scim.md#names): the parts as
    supplied (None when the source has none), the display name ``name``, else the
    parts joined. Nothing changes when the source supplies no name at all."""
    given, family = _fit(given_name), _fit(family_name)
    display = _fit(name) or _fit(join_name(given, family))
    if display is None:
        return
    account.name, account.given_name, account.family_name = display, given, family


def name_parts(account: Account) -> tuple[str, str]:
    """Given and family name, both non-empty: the ones a source supplied, the rest
    split from the display name (:func:`workspace.core.names.complete`)."""
    parts = complete(account.given_name, account.family_name, account.name)
    if parts is None:  # an account always has a name; this is for a blank one
        local = account.email.split("@")[0]
        return local, local
    return parts


def _fit(text: str | None) -> str | None:
    """A name as stored: whitespace collapsed, at most the column's size."""
    cleaned = clean(text)
    return cleaned[:NAME_SIZE].rstrip() if cleaned else None


class MembershipEnded(ForbiddenError):
    """The account's membership of the org was deactivated. Deprovisioning sticks:
    only whoever may reactivate it (an admin, or the org's SCIM for members it
    manages) brings it back, never a sign-in or an invitation as a side effect."""

    def __init__(self, org: Org) -> None:
        super().__init__(
            f"Your access to {org.name} was removed by its administrators. "
            "Ask one of them to restore it."
        )


def add_member(
    org: Org,
    account: Account,
    role: OrgRole = OrgRole.MEMBER,
    *,
    actor_id: uuid.UUID | None = None,
    via: str = "manual",
) -> OrgMember:
    """Make the account an active member. An already active member keeps their role;
    a deactivated one raises :class:`MembershipEnded` (see :func:`restore_membership`)."""
    member = db.session.scalar(
        select(OrgMember).where(OrgMember.org_id == org.id, OrgMember.account_id == account.id)
    )
    if member is not None and member.active:
        return member
    if member is not None:
        raise MembershipEnded(org)
    member = OrgMember(org_id=org.id, account_id=account.id, role=role, joined_via=via)
    db.session.add(member)
    db.session.flush()
    _member_event(member, account, "member.added", actor_id, role=str(member.role), via=via)
    return member


def ended_membership(org: Org, account: Account) -> OrgMember | None:
    """The account's deactivated membership of the org, if it has one."""
    return db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == org.id,
            OrgMember.account_id == account.id,
            OrgMember.active.is_(False),
        )
    )


def restore_membership(
    member: OrgMember, *, actor_id: uuid.UUID | None = None, via: str = "manual"
) -> OrgMember:
    """The core step of reactivation: the membership back with the role it had,
    recorded as ``member.added`` with ``reactivated``. Not meant as a standalone
    action: every path calls ``auth.membership.reactivate_member``, after checking
    that it may (an owner's membership needs an owner, or an owner's SCIM token)."""
    if member.active:
        return member
    member.active, member.deactivated_at = True, None
    db.session.flush()
    _member_event(
        member,
        member.account,
        "member.added",
        actor_id,
        role=str(member.role),
        via=via,
        reactivated=True,
    )
    return member


def _member_event(
    member: OrgMember, account: Account, kind: str, actor_id: uuid.UUID | None, **data: Any
) -> None:
    """Record ``kind`` in the member's org, naming the account and carrying the member's id."""
    record_event(
        member.org_id,
        kind,
        actor_id=actor_id,
        subject=account.email,
        member_id=str(member.id),
        **data,
    )


def active_owner_count(org_id: uuid.UUID) -> int:
    return (
        db.session.scalar(
            select(func.count())
            .select_from(OrgMember)
            .where(
                OrgMember.org_id == org_id,
                OrgMember.role == OrgRole.OWNER,
                OrgMember.active.is_(True),
            )
        )
        or 0
    )


def _lock_org(org_id: uuid.UUID) -> None:
    """Hold the org's row until commit, so that two owners removed at the same
    moment do not each count the other as still there: the second count waits for
    the first to commit."""
    lock_row(Org.id == org_id, Org.slug)


def end_membership(
    member: OrgMember, *, actor_id: uuid.UUID | None = None, via: str = "manual"
) -> bool:
    """The core step of deactivation: the membership inactive, keeping the account
    and everything it wrote, recorded as ``member.deactivated``. The last owner is
    never removed: returns False and changes nothing. Not meant as a standalone
    action: every path calls ``auth.membership.deactivate_member``, which also
    revokes the member's tokens and sessions."""
    if not member.active:
        return True
    if member.role == OrgRole.OWNER:
        _lock_org(member.org_id)
        db.session.refresh(member)
        if not member.active:
            return True
        if active_owner_count(member.org_id) <= 1:
            return False
    member.active = False
    member.deactivated_at = utcnow()
    _member_event(member, member.account, "member.deactivated", actor_id, via=via)
    return True


#: How a person joined (``OrgMember.joined_via``), in the words the Members page uses.
JOINED_VIA_LABELS = {
    "password": "Signed up with a password",
    "sso": "Single sign-on",
    "ldap": "Directory (LDAP)",
    "scim": "Provisioned by SCIM",
    "agent": "Created as an agent",
    "invite": "Invited",
    "manual": "Added directly",
}

LAST_OWNER = (
    "{email} is the last active owner of this organization, so they cannot be {what}. "
    "Make another member an owner first, then try again."
)


def joined_via_label(via: str | None) -> str:
    return JOINED_VIA_LABELS.get(via or "manual", via or "Added directly")


def change_role(member: OrgMember, role: OrgRole | str, *, actor: OrgMember) -> OrgMember:
    """Give a member another org role (owner, admin or member), recorded as
    ``member.role_changed`` with the actor and both roles. Only an owner makes or
    unmakes an owner (an admin changes members and admins, themselves included); the
    last active owner is never demoted (the org row is locked first, as in
    :func:`end_membership`, so two concurrent demotions cannot both pass). An agent
    is never an owner. Nothing is revoked: the new role applies from the next request."""
    new = OrgRole(role)
    old = OrgRole(member.role)
    if new == old:
        return member
    owners_only = "Only an owner can make someone an owner or change an owner's role."
    if OrgRole.OWNER in (old, new) and OrgRole(actor.role) != OrgRole.OWNER:
        raise ForbiddenError(owners_only, field="role")
    if new == OrgRole.OWNER and member.account.is_agent:
        raise ServiceError("An agent cannot be an owner; make it an admin instead.", field="role")
    if OrgRole.OWNER in (old, new):
        # Counted and checked again under the org's lock: a concurrent change may
        # have just demoted the actor or the org's other owner.
        _lock_org(member.org_id)
        db.session.refresh(member)
        db.session.refresh(actor)
        if not actor.active or OrgRole(actor.role) != OrgRole.OWNER:
            raise ForbiddenError(owners_only, field="role")
        old = OrgRole(member.role)
        if old == new:
            return member
        if old == OrgRole.OWNER and member.active and active_owner_count(member.org_id) <= 1:
            raise ConflictError(
                LAST_OWNER.format(email=member.account.email, what="demoted"), field="role"
            )
    member.role = new
    # A person's choice from now on: group sync neither demotes an admin made here nor
    # promotes a member demoted here (docs/sso.md#org-role-from-groups).
    member.role_source, member.synced_group, member.synced_source = "manual", None, None
    db.session.flush()
    _member_event(
        member,
        member.account,
        "member.role_changed",
        actor.account_id,
        old_role=str(old),
        new_role=str(new),
    )
    return member


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def members_query(org_id: uuid.UUID, search: str | None = None) -> Select:
    """Every membership of the org (active or not) with its account, ordered for a
    stable page: name, email, id. ``search`` matches part of the name or the email,
    case-insensitively (``%`` and ``_`` are plain characters)."""
    query = (
        select(OrgMember)
        .join(Account, Account.id == OrgMember.account_id)
        .where(OrgMember.org_id == org_id)
    )
    if search:
        pattern = _like_pattern(search)
        query = query.where(
            or_(
                func.lower(Account.name).like(pattern, escape="\\"),
                func.lower(Account.email).like(pattern, escape="\\"),
            )
        )
    return query.order_by(func.lower(Account.name), Account.email, OrgMember.id)


def list_members(org_id: uuid.UUID, *, include_inactive: bool = False) -> list[OrgMember]:
    query = select(OrgMember).join(Account).where(OrgMember.org_id == org_id)
    if not include_inactive:
        query = query.where(OrgMember.active.is_(True))
    return list(db.session.scalars(query.order_by(Account.name, Account.email)))


def get_member(org_id: uuid.UUID, member_id: uuid.UUID) -> OrgMember:
    member = db.session.get(OrgMember, member_id)
    if member is None or member.org_id != org_id:
        raise NotFoundError("No such member in this organization.")
    return member


def require_active_member(org_id: uuid.UUID, account_id: uuid.UUID, field: str) -> Account:
    """The account, if it is an active member of the org; otherwise a 400 on ``field``."""
    member = db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == org_id,
            OrgMember.account_id == account_id,
            OrgMember.active.is_(True),
        )
    )
    if member is None:
        raise ServiceError(
            "That account is not an active member of this organization.", field=field
        )
    return member.account
