"""Pending invitations on Settings > Members (docs/admin.md#pending-invitations):
resending a new one-time link and revoking an invitation nobody took up.

An invitation is the membership ``auth.invites.invite`` made (joined ``via="invite"``)
plus, for an account with no other way in, a one-time sign-in link. It is *pending*
while the person has not signed in since (``members.pending_clause``). A join link
(an account on our verified domain that never proved its address) has no membership
yet: it is listed here too, and can be revoked.

- Resend retires the person's unused links of this org first, so only the newest
  link works, then makes a new one through the invite flow's own link maker, under
  the flow's rules: no link for an account with its own way in or under enforced SSO.
- Revoke retires the unused links and deactivates the membership (the one way a
  membership ends, ``auth.membership.deactivate_member``): the invitation can no
  longer be used, and reactivating the person later needs a new link (resend).
- An invitation to an owner is resent or revoked by an owner only, as only an owner
  invites one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, select, update

from workspace.admin import members
from workspace.auth import enforced_sso, invites, membership
from workspace.auth.models import SignInLink
from workspace.core import accounts
from workspace.core.events import record_event
from workspace.core.models import OrgMember, OrgRole
from workspace.errors import ConflictError, ForbiddenError, NotFoundError
from workspace.extensions import db
from workspace.security.permissions import Access
from workspace.types import utcnow

NOT_PENDING = (
    "{email} has already signed in, so there is no invitation to {what}. "
    "Deactivate them instead if they should lose access."
)
OWNERS_ONLY = "Only an owner can resend or revoke an invitation to an owner."


@dataclass(frozen=True)
class JoinLink:
    """A join link waiting for its account's holder (no membership yet)."""

    link_id: uuid.UUID
    email: str
    name: str
    created_at: datetime
    expires_at: datetime


def _pending_member(access: Access, member_id: uuid.UUID, what: str) -> OrgMember:
    member = accounts.get_member(access.org.id, member_id)
    pending = db.session.scalar(
        select(exists().where(OrgMember.id == member.id, members.pending_clause()))
    )
    if not pending:
        raise ConflictError(NOT_PENDING.format(email=member.account.email, what=what))
    if member.role == OrgRole.OWNER and access.role != OrgRole.OWNER:
        raise ForbiddenError(OWNERS_ONLY)
    return member


def _retire_links(org_id: uuid.UUID, account_id: uuid.UUID) -> int:
    """End every unused, unexpired link of the account for this org (they expire
    now): the flow's own check (``invites.usable_link``) then refuses them."""
    now = utcnow()
    return db.session.execute(
        update(SignInLink)
        .where(
            SignInLink.org_id == org_id,
            SignInLink.account_id == account_id,
            SignInLink.used_at.is_(None),
            SignInLink.expires_at > now,
        )
        .values(expires_at=now)
        .execution_options(synchronize_session="fetch")
    ).rowcount


def resend(access: Access, member_id: uuid.UUID) -> invites.Invitation:
    """A new one-time link for a pending invitation (shown once, as on inviting),
    the old ones retired; recorded as ``member.invite_resent``. No link when the
    person has their own way to sign in, or their org enforces SSO: they sign in as
    they do (the answer's ``token`` is None)."""
    member = _pending_member(access, member_id, "resend")
    account = member.account
    retired = _retire_links(access.org.id, account.id)
    raw, expires_at = None, None
    if (
        not invites.has_own_sign_in(account, access.org.id)
        and enforced_sso.enforced_for(account) is None
    ):
        # The invite flow's link maker, so the token and its lifetime are the flow's.
        raw, expires_at = invites.new_link(account, access.org, access.member, None)
    record_event(
        access.org.id,
        "member.invite_resent",
        actor_id=access.account.id,
        subject=account.email,
        member_id=str(member.id),
        link=raw is not None,
        retired_links=retired,
    )
    db.session.flush()
    return invites.Invitation(member=member, token=raw, expires_at=expires_at, email=account.email)


def revoke(access: Access, member_id: uuid.UUID) -> OrgMember:
    """Withdraw a pending invitation: its links stop working and the membership is
    deactivated; recorded as ``member.invite_revoked`` (and ``member.deactivated``)."""
    member = _pending_member(access, member_id, "revoke")
    retired = _retire_links(access.org.id, member.account_id)
    if not membership.deactivate_member(member, actor_id=access.account.id):
        # Unreachable in practice (a pending owner is never the last active owner,
        # since someone invited them), but the rule is core's to keep.
        raise ConflictError(
            accounts.LAST_OWNER.format(email=member.account.email, what="deactivated")
        )
    record_event(
        access.org.id,
        "member.invite_revoked",
        actor_id=access.account.id,
        subject=member.account.email,
        member_id=str(member.id),
        retired_links=retired,
    )
    db.session.flush()
    return member


def join_links(org_id: uuid.UUID) -> list[JoinLink]:
    """Unused, unexpired links of this org whose account is not a member: join links."""
    now = utcnow()
    is_member = exists().where(
        OrgMember.org_id == SignInLink.org_id, OrgMember.account_id == SignInLink.account_id
    )
    rows = db.session.scalars(
        select(SignInLink)
        .where(
            SignInLink.org_id == org_id,
            SignInLink.used_at.is_(None),
            SignInLink.expires_at > now,
            ~is_member,
        )
        .order_by(SignInLink.created_at.desc())
        .limit(200)
    )
    return [
        JoinLink(r.id, r.account.email, r.account.name or "", r.created_at, r.expires_at)
        for r in rows
    ]


def revoke_join_link(access: Access, link_id: uuid.UUID) -> str:
    """Withdraw a join link (it expires now); recorded as ``member.invite_revoked``.
    Returns the address it was for."""
    link = db.session.get(SignInLink, link_id)
    live = link is not None and link.org_id == access.org.id and link.used_at is None
    if not live or link.expires_at <= utcnow():
        raise NotFoundError("No such invitation waiting in this organization.")
    link.expires_at = utcnow()
    record_event(
        access.org.id,
        "member.invite_revoked",
        actor_id=access.account.id,
        subject=link.account.email,
        link="join",
    )
    db.session.flush()
    return link.account.email
