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

from sqlalchemy import ColumnElement, and_, case, exists, func, select

from workspace.admin.schemas import MemberListQuery
from workspace.auth import membership
from workspace.auth.models import AuthSession, SignInLink
from workspace.core import accounts
from workspace.core.models import OrgMember, OrgRole
from workspace.errors import ConflictError, ForbiddenError
from workspace.extensions import db
from workspace.identity.groupsync import org_role
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
    #: active, pending (invited, not signed in since), revoked (an invitation
    #: withdrawn before it was taken up) or deactivated.
    status: str = "active"

    @property
    def joined_via(self) -> str:
        return accounts.joined_via_label(self.member.joined_via)

    @property
    def pending(self) -> bool:
        return self.status == "pending"


@dataclass(frozen=True)
class Facets:
    """How many members each filter option would show, the other filters applied."""

    roles: dict[str, int]
    statuses: dict[str, int]
    joined: dict[str, int]


def _scim_managed_column():
    return (
        exists()
        .where(ScimIdentity.member_id == OrgMember.id, ScimIdentity.deleted_at.is_(None))
        .label("scim_managed")
    )


def _invitation_untaken() -> ColumnElement[bool]:
    """A membership that began with an invitation whose account has not signed in
    since, nor used a link of this org. Sessions are kept after they end (revoked, not
    deleted), so this stays true."""
    signed_in = exists().where(
        AuthSession.account_id == OrgMember.account_id,
        AuthSession.created_at >= OrgMember.created_at,
    )
    used_link = exists().where(
        SignInLink.account_id == OrgMember.account_id,
        SignInLink.org_id == OrgMember.org_id,
        SignInLink.used_at.is_not(None),
    )
    return and_(OrgMember.joined_via == "invite", ~signed_in, ~used_link)


def pending_clause() -> ColumnElement[bool]:
    """An active membership whose invitation is not taken up yet."""
    return and_(OrgMember.active.is_(True), _invitation_untaken())


def status_column() -> ColumnElement[str]:
    # An invitation withdrawn before anyone took it up reads as revoked, not as a
    # person who once worked here and was deactivated.
    return case(
        (and_(OrgMember.active.is_(False), _invitation_untaken()), "revoked"),
        (OrgMember.active.is_(False), "deactivated"),
        (pending_clause(), "pending"),
        else_="active",
    )


def _filtered(query, q: MemberListQuery, *, skip: str = ""):
    """``query`` narrowed by the list's filters, all but ``skip`` (a facet's own)."""
    if q.has_role and skip != "role":
        query = query.where(OrgMember.role == str(q.has_role))
    if q.joined and skip != "joined":
        query = query.where(OrgMember.joined_via == q.joined)
    if q.status and skip != "status":
        query = query.where(status_column() == q.status)
    return query


def list_page(org_id: uuid.UUID, query: MemberListQuery) -> tuple[list[MemberListing], bool]:
    """One page (``PAGE_SIZE``) of the org's members matching the search and filters,
    with last sign-in, SCIM flag and status, in one query; and whether a next page
    exists."""
    last = (
        select(
            AuthSession.account_id.label("account_id"),
            func.max(AuthSession.created_at).label("last_sign_in"),
        )
        .group_by(AuthSession.account_id)
        .subquery()
    )
    status = status_column().label("status")
    stmt = (
        accounts.members_query(org_id, query.q or None)
        .outerjoin(last, last.c.account_id == OrgMember.account_id)
        .add_columns(last.c.last_sign_in, _scim_managed_column(), status)
    )
    stmt = _filtered(stmt, query).offset((query.page - 1) * PAGE_SIZE).limit(PAGE_SIZE + 1)
    rows = db.session.execute(stmt).all()
    listing = [MemberListing(r[0], r[1], bool(r[2]), r[3]) for r in rows[:PAGE_SIZE]]
    return listing, len(rows) > PAGE_SIZE


def facets(org_id: uuid.UUID, query: MemberListQuery) -> Facets:
    """The counts beside each filter option: one grouped query per filter, each
    under the search and the other two filters (so a count is what choosing it shows)."""

    def counts(column, skip: str) -> dict[str, int]:
        base = accounts.members_query(org_id, query.q or None).order_by(None)
        # Grouped outside a subquery: PostgreSQL does not match a CASE with bound
        # literals in GROUP BY to the same CASE in the select list.
        values = _filtered(base, query, skip=skip).with_only_columns(column.label("value"))
        inner = values.subquery()
        grouped = select(inner.c.value, func.count()).group_by(inner.c.value)
        return {str(v): n for v, n in db.session.execute(grouped)}

    return Facets(
        roles=counts(OrgMember.role, "role"),
        statuses=counts(status_column(), "status"),
        joined=counts(OrgMember.joined_via, "joined"),
    )


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


AGENT_NO_GROUPS = "An agent holds no groups; set its role here."


def hand_role_to_groups(access: Access, member_id: uuid.UUID) -> OrgMember:
    """Group sync sets the member's org role again after a person set it by hand
    (docs/sso.md#org-role-from-groups): admin when one of their groups is mapped to the
    org, else member. A member who drops to member loses the SCIM token they
    generated, as on a demotion here."""
    member = accounts.get_member(access.org.id, member_id)
    if member.account.is_agent:
        raise ConflictError(AGENT_NO_GROUPS, field="role")
    change = org_role.hand_back(member, actor_id=access.account.id)  # refuses an owner
    if change is not None and not change.granted:
        scim_tokens.revoke_minted_by(
            member.org_id, member.account_id, "minter_demoted", actor_id=access.account.id
        )
    return member


def role_from_groups_offers(org_id: uuid.UUID, rows: list[MemberListing]) -> dict[uuid.UUID, str]:
    """For each listed member whose org role a person set by hand, the role group sync
    would give them now ("admin, via SSO group Admins" or "member"). Empty when no group
    is mapped to the org: handing a role back could then only make it member."""
    if not org_role.any_org_mapping(org_id):
        return {}
    offered = [
        row.member
        for row in rows
        if row.member.role_source == org_role.MANUAL
        and not row.member.account.is_agent
        and OrgRole(row.member.role) != OrgRole.OWNER
    ]
    grants = org_role.hand_back_grants(org_id, offered)
    return {
        member.id: f"admin, via {grant.label}" if (grant := grants[member.id]) else "member"
        for member in offered
    }


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
    access: Access,
    member_id: uuid.UUID,
    *,
    role: OrgRole | None,
    active: bool | None,
    role_from_groups: bool = False,
) -> OrgMember:
    """The API's PATCH: the role first (set, or handed to group sync), then the active
    state, each under its rules; either refusal rolls back both (the request does)."""
    member = accounts.get_member(access.org.id, member_id)
    if role is not None:
        change_role(access, member.id, role)
    if role_from_groups:
        hand_role_to_groups(access, member.id)
    if active is not None:
        set_active(access, member.id, active)
    return member
