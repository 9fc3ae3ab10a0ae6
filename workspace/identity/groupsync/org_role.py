"""The org's admin role from groups (docs/sso.md#org-role-from-groups): a mapping
without a project grants the org's admin role, never owner. Every source's reconcile
applies it through ``service.reconcile``.

The rules, whatever the source: an owner is never changed; an admin a person made
(``role_source`` not "synced") is never demoted nor marked synced; a member a person
demoted ("manual") is not promoted again; only what a group granted is taken back,
with the same stale-removal rule as project roles (SCIM removes explicitly, SSO and
the directory when the connection's "remove stale" setting is on)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, select

from workspace.core.events import record_event
from workspace.core.models import OrgMember, OrgRole
from workspace.errors import ConflictError
from workspace.extensions import db
from workspace.identity.groupsync import held
from workspace.identity.groupsync.models import GroupMapping
from workspace.inputs import fit_external
from workspace.transaction import lock_row

#: The only org role a mapping grants.
ROLE = OrgRole.ADMIN.value
SYNCED = "synced"
MANUAL = "manual"
#: What ``OrgMember.synced_group`` holds.
GROUP_MAX = 255
OWNER_NOT_SYNCED = (
    "Group sync never sets an owner's role. Make {email} an admin first if their groups "
    "should decide it."
)


@dataclass(frozen=True)
class OrgGrant:
    group: str
    source: str

    @property
    def label(self) -> str:
        return held.label(self.source, self.group) or self.group


@dataclass(frozen=True)
class OrgRoleChange:
    """admin granted (``role`` admin) or taken back (``role`` member)."""

    role: str
    from_role: str
    #: The group that grants it, or that granted it ("SCIM group Admins").
    group: str | None = None

    @property
    def granted(self) -> bool:
        return self.role == ROLE


def lock_person(org_id: uuid.UUID, account_id: uuid.UUID) -> OrgMember | None:
    """Hold the person's membership row before reading their groups and grants
    (``transaction.lock_row``), so two reconciles of one person (two SCIM group
    PATCHes, a sign-in and a PATCH) run one after the other, the second reading the
    first's result, instead of both adding the same project membership. Returns the
    row, read after the lock."""
    where = and_(OrgMember.org_id == org_id, OrgMember.account_id == account_id)
    lock_row(where, OrgMember.role)
    member = db.session.scalar(select(OrgMember).where(where))
    if member is not None:
        db.session.refresh(member)
    return member


def lock_members(member_ids: list[uuid.UUID]) -> None:
    """``lock_person`` for several memberships by id, one at a time in id order, so
    two requests locking overlapping people cannot deadlock (SCIM reads a group's
    members' groups only after this)."""
    for member_id in sorted(set(member_ids), key=str):
        lock_row(OrgMember.id == member_id, OrgMember.role)


def org_grant(org_id: uuid.UUID, by_source: held.Held) -> OrgGrant | None:
    """The group (and source) granting the org's admin role, if any of the person's
    groups maps to it; on several, the group that sorts first, then the source order."""
    names = set().union(*by_source.values()) if by_source else set()
    if not names:
        return None
    groups = db.session.scalars(
        select(GroupMapping.idp_group).where(
            GroupMapping.org_id == org_id,
            GroupMapping.project_id.is_(None),
            GroupMapping.idp_group.in_(names),
        )
    )
    return _first_grant(by_source, set(groups))


def _first_grant(by_source: held.Held, mapped: set[str]) -> OrgGrant | None:
    """Of the person's groups mapped to the org's admin role, the one that sorts
    first, then by source order."""
    candidates = [
        (group, held.SOURCES.index(source), source)
        for source in held.SOURCES
        for group in by_source.get(source, ())
        if group in mapped
    ]
    if not candidates:
        return None
    group, _, source = min(candidates)
    return OrgGrant(group, source)


def plan_change(
    member: OrgMember | None, grant: OrgGrant | None, *, remove_stale: bool, source: str
) -> OrgRoleChange | None:
    """What group sync does to this membership's org role. Reads only."""
    if member is None or member.role == OrgRole.OWNER:
        return None
    if grant is not None:
        if member.role == OrgRole.MEMBER and member.role_source != MANUAL and member.active:
            return OrgRoleChange(ROLE, OrgRole.MEMBER.value, grant.label)
        return None
    stale = member.role == OrgRole.ADMIN and member.role_source == SYNCED
    if stale and (remove_stale or (source == "scim" and member.synced_source == "scim")):
        return OrgRoleChange(
            OrgRole.MEMBER.value,
            ROLE,
            held.label(member.synced_source, member.synced_group),
        )
    return None


def apply(member: OrgMember, change: OrgRoleChange | None, grant: OrgGrant | None) -> None:
    """Write ``change`` (the caller records the event); a synced admin kept names the
    group that grants it now."""
    if change is not None and change.granted and grant is not None:
        member.role, member.role_source = ROLE, SYNCED
        member.synced_group = fit_external(grant.group, GROUP_MAX)
        member.synced_source = grant.source
    elif change is not None:
        member.role, member.role_source = OrgRole.MEMBER.value, None
        member.synced_group = member.synced_source = None
    elif grant is not None and member.role_source == SYNCED and member.role == ROLE:
        group = fit_external(grant.group, GROUP_MAX)
        if (member.synced_group, member.synced_source) != (group, grant.source):
            member.synced_group, member.synced_source = group, grant.source


def any_org_mapping(org_id: uuid.UUID) -> bool:
    """Whether some group is mapped to the org's admin role."""
    query = select(GroupMapping.id).where(
        GroupMapping.org_id == org_id, GroupMapping.project_id.is_(None)
    )
    return db.session.scalar(query.limit(1)) is not None


def hand_back_grant(member: OrgMember) -> OrgGrant | None:
    """What :func:`hand_back` would make the member: admin through this grant, or
    member when None. Reads only."""
    if not member.active:
        return None
    return org_grant(member.org_id, held.held_groups(member.org_id, member.account_id))


def hand_back_grants(
    org_id: uuid.UUID, members: Sequence[OrgMember]
) -> dict[uuid.UUID, OrgGrant | None]:
    """:func:`hand_back_grant` of each member, by membership id, in two queries
    whatever their number (the members page offers a hand-back on every row)."""
    active = [m for m in members if m.active]
    groups = held.held_groups_of(org_id, [m.account_id for m in active])
    mapped = set(
        db.session.scalars(
            select(GroupMapping.idp_group).where(
                GroupMapping.org_id == org_id, GroupMapping.project_id.is_(None)
            )
        )
    )
    grants: dict[uuid.UUID, OrgGrant | None] = {m.id: None for m in members}
    for member in active:
        grants[member.id] = _first_grant(groups.get(member.account_id, {}), mapped)
    return grants


def hand_back(member: OrgMember, *, actor_id: uuid.UUID | None) -> OrgRoleChange | None:
    """Let group sync set this person's org role again, after a person set it by hand:
    from now the role is what their groups grant (the groups each source last told us,
    ``held``), admin or member, and it follows them as any synced role does. Locks the
    person as a reconcile does, then refuses an owner (409): group sync never writes
    an owner, and the check before the lock could have raced a promotion to owner.
    Records ``groupsync.org_role_handed_back``; returns the change when the role
    moves. Flushes."""
    lock_person(member.org_id, member.account_id)
    if OrgRole(member.role) == OrgRole.OWNER:
        raise ConflictError(OWNER_NOT_SYNCED.format(email=member.account.email), field="role")
    grant = hand_back_grant(member)
    # The role their groups give, written as a reconcile writes it: synced admin, or
    # member with no source (the change is made even when the role stays, to drop
    # the "manual" mark).
    role = ROLE if grant is not None else OrgRole.MEMBER.value
    change = OrgRoleChange(role, member.role, grant.label if grant is not None else None)
    apply(member, change, grant)
    record_event(
        member.org_id,
        "groupsync.org_role_handed_back",
        actor_id=actor_id,
        subject=member.account.email,
        role=change.role,
        from_role=change.from_role,
        group=change.group,
    )
    db.session.flush()
    return change if change.role != change.from_role else None


def synced_admins_of(org_id: uuid.UUID, group: str) -> list[OrgMember]:
    """The admins this group made (a removed mapping demotes them)."""
    return list(
        db.session.scalars(
            select(OrgMember).where(
                OrgMember.org_id == org_id,
                OrgMember.role == ROLE,
                OrgMember.role_source == SYNCED,
                OrgMember.synced_group == fit_external(group, GROUP_MAX),
            )
        )
    )
