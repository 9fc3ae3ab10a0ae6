"""What Settings > Members and its API do to a membership (docs/admin.md): the rules
that sit above core and auth because they need SCIM's view of a member too.

- An admin manages members and admins; only an owner touches an owner (role,
  deactivation) or makes one. The last active owner is never demoted or removed.
- Nobody deactivates themselves here (another owner or admin does it).
- A member managed by SCIM (a live ``ScimIdentity``) is activated and deactivated by
  the identity provider only; their role is still set here (SCIM pushes no roles).
- Agents are created and removed in Settings > Agents; here only their role changes
  (never to owner).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, select

from workspace.auth import membership
from workspace.core import accounts
from workspace.core.models import OrgMember, OrgRole
from workspace.errors import ConflictError, ForbiddenError
from workspace.extensions import db
from workspace.scim import tokens as scim_tokens
from workspace.scim.models import ScimIdentity
from workspace.security.permissions import Access

PAGE_SIZE = 50

SCIM_MANAGED = (
    "{email} is managed by your identity provider (SCIM): activate or deactivate them "
    "there. Their role can still be changed here."
)
AGENT_HERE = "Agents are created and removed in Settings > Agents."
NOT_YOURSELF = (
    "You cannot deactivate yourself. Ask another owner or admin to do it, so the "
    "organization is never left without someone to manage it."
)
OWNERS_ONLY = "Only an owner can deactivate or reactivate an owner."


@dataclass(frozen=True)
class MemberListing:
    member: OrgMember
    last_sign_in: datetime | None
    #: Activated and deactivated by the identity provider (a live SCIM identity).
    scim_managed: bool

    @property
    def joined_via(self) -> str:
        return accounts.joined_via_label(self.member.joined_via)


def _scim_managed_column():
    return (
        exists()
        .where(ScimIdentity.member_id == OrgMember.id, ScimIdentity.deleted_at.is_(None))
        .label("scim_managed")
    )


def list_page(
    org_id: uuid.UUID, *, search: str | None, page: int
) -> tuple[list[MemberListing], bool]:
    """One page (``PAGE_SIZE``) of the org's members with last sign-in and SCIM flag, in
    one query; and whether a next page exists."""
    rows = membership.member_rows(
        org_id,
        search=search,
        offset=(page - 1) * PAGE_SIZE,
        limit=PAGE_SIZE + 1,
        extra=(_scim_managed_column(),),
    )
    listing = [
        MemberListing(r.member, r.last_sign_in, bool(r.extra["scim_managed"]))
        for r in rows[:PAGE_SIZE]
    ]
    return listing, len(rows) > PAGE_SIZE


def scim_managed(member: OrgMember) -> bool:
    return bool(
        db.session.scalar(
            select(
                exists().where(
                    ScimIdentity.member_id == member.id, ScimIdentity.deleted_at.is_(None)
                )
            )
        )
    )


def change_role(access: Access, member_id: uuid.UUID, role: OrgRole | str) -> OrgMember:
    """The role under core's rules; a member who no longer manages the org loses the
    SCIM token they generated (it would keep their old rights)."""
    member = accounts.get_member(access.org.id, member_id)
    member = accounts.change_role(member, role, actor=access.member)
    if OrgRole(member.role) == OrgRole.MEMBER:
        scim_tokens.revoke_minted_by(
            member.org_id, member.account_id, "minter_demoted", actor_id=access.account.id
        )
    return member


def _check_active_change(access: Access, member: OrgMember) -> None:
    if member.account.is_agent:
        raise ConflictError(AGENT_HERE, field="active")
    if scim_managed(member):
        raise ConflictError(SCIM_MANAGED.format(email=member.account.email), field="active")
    if member.role == OrgRole.OWNER and access.role != OrgRole.OWNER:
        raise ForbiddenError(OWNERS_ONLY, field="active")


def set_active(access: Access, member_id: uuid.UUID, active: bool) -> OrgMember:
    """Deactivate (tokens revoked at once, sessions when no org is left; as SCIM
    does) or reactivate (with the role they had) one membership, under the rules
    above."""
    member = accounts.get_member(access.org.id, member_id)
    if member.active == active:
        return member
    if not active and member.account_id == access.account.id:
        raise ConflictError(NOT_YOURSELF, field="active")
    _check_active_change(access, member)
    if active:
        return membership.reactivate_member(member, actor_id=access.account.id)
    if not membership.deactivate_member(member, actor_id=access.account.id):
        raise ConflictError(
            accounts.LAST_OWNER.format(email=member.account.email, what="deactivated"),
            field="active",
        )
    # The token a deactivated admin generated would let them provision themselves back.
    scim_tokens.revoke_minted_by(
        member.org_id, member.account_id, "minter_deactivated", actor_id=access.account.id
    )
    return member


def update_member(
    access: Access, member_id: uuid.UUID, *, role: OrgRole | None, active: bool | None
) -> OrgMember:
    """The API's PATCH: the role first, then the active state, each under its rules;
    either refusal rolls back both (the request does)."""
    member = accounts.get_member(access.org.id, member_id)
    if role is not None:
        change_role(access, member.id, role)
    if active is not None:
        set_active(access, member.id, active)
    return member
