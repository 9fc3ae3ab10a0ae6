"""IdP group mappings and the reconcile that turns groups into project roles
(docs/sso.md#group-sync). The groups come from the SSO claim (exact names), from the
directory (docs/ldap.md#group-sync), which matches them by DN or CN, and from SCIM
Groups (docs/scim.md#groups); roles follow the union over all three (see ``held``).
Manual memberships are never added to, changed or removed.

A mapping without a project grants the org's admin role (``org_role``); each
reconcile applies it after the project roles, under a lock on the person's membership
row (``org_role.lock_person``) so two reconciles of one person never collide."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from workspace.core.events import record_event
from workspace.core.models import MembershipSource, OrgMember, Project, ProjectMember, ProjectRole
from workspace.extensions import db
from workspace.identity.groupsync import held, org_role
from workspace.identity.groupsync.mappings import add_mapping, list_mappings, remove_mapping
from workspace.identity.groupsync.models import GroupMapping
from workspace.inputs import fit_external

__all__ = ["add_mapping", "list_mappings", "plan", "reconcile", "remove_mapping"]

#: What ``ProjectMember.synced_group`` holds (a mapping's group may be 256 long).
GROUP_MAX = 255

#: Decides whether a mapping's ``idp_group`` is one of the person's groups. SSO passes
#: the claim's names (compared exactly, in SQL); the directory passes a function,
#: because its groups match by normalized DN or case-insensitive CN.
GroupMatcher = Callable[[str], bool]
Groups = Collection[str] | GroupMatcher

# -- reconcile --------------------------------------------------------------------------


def groups_from_claims(claims: dict[str, Any], claim_name: str) -> list[str]:
    """The groups claim as a list: IdPs send a list of strings or a single string."""
    value = claims.get(claim_name)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    # A name with control characters matches no mapping (none can hold one).
    return [g.strip() for g in value if isinstance(g, str) and g.strip() and g.isprintable()]


@dataclass(frozen=True)
class Change:
    project_id: uuid.UUID
    role: str
    from_role: str | None = None


@dataclass
class SyncPlan:
    adds: list[Change] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    removes: list[Change] = field(default_factory=list)
    #: The org's admin role granted or taken back (docs/sso.md#org-role-from-groups).
    org_role: org_role.OrgRoleChange | None = None

    @property
    def empty(self) -> bool:
        return not (self.adds or self.changes or self.removes or self.org_role)


@dataclass(frozen=True)
class Grant:
    """The role a project gets, the group that grants it and that group's source."""

    role: ProjectRole
    group: str
    source: str

    @property
    def label(self) -> str:
        return held.label(self.source, self.group) or self.group


def names_for(org_id: uuid.UUID, groups: Groups) -> set[str]:
    """What is stored for a source: the names themselves, or for a matcher (the
    directory) the names of the mappings it matches."""
    if callable(groups):
        return {m.idp_group for m in list_mappings(org_id) if groups(m.idp_group)}
    return {g for g in groups if g}


def union_grants(org_id: uuid.UUID, groups_by_source: held.Held) -> dict[uuid.UUID, Grant]:
    """Project -> grant from the mappings matching any source's groups: the highest
    rank wins; on a tie the group that sorts first, then the source order, so the
    answer never depends on row order."""
    every = set().union(*groups_by_source.values()) if groups_by_source else set()
    desired: dict[uuid.UUID, Grant] = {}
    for project_id, role_name, group in _matching_mappings(org_id, every):
        role = ProjectRole(role_name)
        for source in held.SOURCES:
            if group not in groups_by_source.get(source, ()):
                continue
            best = desired.get(project_id)
            key = (-role.rank, group, held.SOURCES.index(source))
            if best is None or key < (
                -best.role.rank,
                best.group,
                held.SOURCES.index(best.source),
            ):
                desired[project_id] = Grant(role, group, source)
    return desired


def desired_grants(org_id: uuid.UUID, groups: Groups) -> dict[uuid.UUID, tuple[ProjectRole, str]]:
    """Project -> (role, granting group) from these groups alone."""
    grants = union_grants(org_id, {"sso": names_for(org_id, groups)})
    return {pid: (g.role, g.group) for pid, g in grants.items()}


def matching_mappings(org_id: uuid.UUID, groups: Groups) -> list[GroupMapping]:
    """The org's mappings these groups match, for the preview to show."""
    rows = list_mappings(org_id)
    if callable(groups):
        return [m for m in rows if groups(m.idp_group)]
    names = set(groups)
    return [m for m in rows if m.idp_group in names]


def _matching_mappings(org_id: uuid.UUID, names: set[str]) -> list[tuple[uuid.UUID, str, str]]:
    if not names:
        return []
    columns = select(GroupMapping.project_id, GroupMapping.role, GroupMapping.idp_group).where(
        GroupMapping.org_id == org_id,
        GroupMapping.idp_group.in_(names),
        GroupMapping.project_id.is_not(None),  # the org's admin role: ``org_role``
    )
    return [tuple(row) for row in db.session.execute(columns)]


def _held_with(
    org_id: uuid.UUID, account_id: uuid.UUID | None, groups: Groups | None, source: str
) -> held.Held:
    """The person's stored groups, with ``source``'s replaced by ``groups`` (None:
    as stored)."""
    result = held.held_groups(org_id, account_id)
    if groups is not None:
        result[source] = names_for(org_id, groups)
    return result


def plan(
    org_id: uuid.UUID,
    account_id: uuid.UUID | None,
    groups: Groups | None,
    *,
    remove_stale: bool,
    source: str = "sso",
) -> SyncPlan:
    """What reconcile would do when ``source`` reports ``groups`` (None: nothing new,
    the stored groups); reads only (the dry-run preview is exactly this). The roles
    follow the union of the person's groups over every source. SCIM removes
    memberships explicitly, so a membership a SCIM group granted goes when no group
    grants it any more, whatever ``remove_stale`` says."""
    by_source = _held_with(org_id, account_id, groups, source)
    result = _plan(org_id, account_id, union_grants(org_id, by_source), remove_stale, source)
    member = _member(org_id, account_id)
    result.org_role = org_role.plan_change(
        member, org_role.org_grant(org_id, by_source), remove_stale=remove_stale, source=source
    )
    return result


def _member(org_id: uuid.UUID, account_id: uuid.UUID | None) -> OrgMember | None:
    if account_id is None:
        return None
    return db.session.scalar(
        select(OrgMember).where(OrgMember.org_id == org_id, OrgMember.account_id == account_id)
    )


def _plan(
    org_id: uuid.UUID,
    account_id: uuid.UUID | None,
    desired: dict[uuid.UUID, Grant],
    remove_stale: bool,
    source: str,
) -> SyncPlan:
    current: dict[uuid.UUID, ProjectMember] = {}
    if account_id is not None:
        current = {
            pm.project_id: pm
            for pm in db.session.scalars(
                select(ProjectMember)
                .join(Project, Project.id == ProjectMember.project_id)
                .where(Project.org_id == org_id, ProjectMember.account_id == account_id)
            )
        }
    result = SyncPlan()
    for project_id, grant in sorted(desired.items(), key=lambda kv: str(kv[0])):
        existing = current.get(project_id)
        if existing is None:
            result.adds.append(Change(project_id, grant.role.value))
        elif existing.source == MembershipSource.SYNCED and existing.role != grant.role.value:
            result.changes.append(Change(project_id, grant.role.value, existing.role))
    for project_id, pm in sorted(current.items(), key=lambda kv: str(kv[0])):
        stale = pm.source == MembershipSource.SYNCED and project_id not in desired
        if stale and (remove_stale or (source == "scim" and pm.synced_source == "scim")):
            result.removes.append(Change(project_id, pm.role))
    return result


def reconcile(
    org_id: uuid.UUID,
    account_id: uuid.UUID,
    email: str,
    groups: Groups | None,
    *,
    remove_stale: bool,
    source: str = "sso",
) -> SyncPlan:
    """Store ``groups`` as what ``source`` says the person holds now (None: keep what
    is stored, e.g. after a SCIM change wrote it), apply the plan for the union of
    every source's groups, and record each change as
    ``<source>.sync.added|changed|removed`` (so the audit log names what triggered
    it), and the org's admin role as ``<source>.sync.org_role_granted|revoked``.
    Does not commit."""
    member = org_role.lock_person(org_id, account_id)
    if groups is not None:
        held.replace_groups(org_id, account_id, source, names_for(org_id, groups))
    by_source = held.held_groups(org_id, account_id)
    grants = union_grants(org_id, by_source)
    todo = _plan(org_id, account_id, grants, remove_stale, source)
    # Spelled out so every kind recorded below is a literal the audit log knows.
    prefix = "ldap" if source == "ldap" else "scim" if source == "scim" else "sso"
    for add in todo.adds:
        grant = grants[add.project_id]
        db.session.add(
            ProjectMember(
                project_id=add.project_id,
                account_id=account_id,
                role=add.role,
                source=MembershipSource.SYNCED,
                synced_group=fit_external(grant.group, GROUP_MAX),
                synced_source=grant.source,
            )
        )
        record_event(
            org_id,
            f"{prefix}.sync.added",
            subject=email,
            project_id=str(add.project_id),
            role=add.role,
            group=grant.label,
        )
    by_project = {
        pm.project_id: pm
        for pm in db.session.scalars(
            select(ProjectMember).where(
                ProjectMember.account_id == account_id,
                ProjectMember.project_id.in_([c.project_id for c in todo.changes + todo.removes]),
            )
        )
    }
    for change in todo.changes:
        by_project[change.project_id].role = change.role
        record_event(
            org_id,
            f"{prefix}.sync.changed",
            subject=email,
            project_id=str(change.project_id),
            role=change.role,
            from_role=change.from_role,
            group=grants[change.project_id].label,
        )
    _refresh_groups(account_id, grants)
    for remove in todo.removes:
        db.session.delete(by_project[remove.project_id])
        record_event(
            org_id,
            f"{prefix}.sync.removed",
            subject=email,
            project_id=str(remove.project_id),
            role=remove.role,
        )
    if member is not None:
        grant = org_role.org_grant(org_id, by_source)
        todo.org_role = org_role.plan_change(
            member, grant, remove_stale=remove_stale, source=source
        )
        org_role.apply(member, todo.org_role, grant)
        if todo.org_role is not None:
            kind = "org_role_granted" if todo.org_role.granted else "org_role_revoked"
            record_event(
                org_id,
                f"{prefix}.sync.{kind}",
                subject=email,
                role=todo.org_role.role,
                from_role=todo.org_role.from_role,
                group=todo.org_role.group,
            )
    db.session.flush()
    return todo


def _refresh_groups(account_id: uuid.UUID, grants: dict[uuid.UUID, Grant]) -> None:
    """Every synced membership kept names the group (and source) that grants it now
    (the role may be unchanged while the granting group changed). No event: who
    holds which role did not change."""
    if not grants:
        return
    for pm in db.session.scalars(
        select(ProjectMember).where(
            ProjectMember.account_id == account_id,
            ProjectMember.source == MembershipSource.SYNCED,
            ProjectMember.project_id.in_(list(grants)),
        )
    ):
        grant = grants[pm.project_id]
        group = fit_external(grant.group, GROUP_MAX)
        if (pm.synced_group, pm.synced_source) != (group, grant.source):
            pm.synced_group, pm.synced_source = group, grant.source
