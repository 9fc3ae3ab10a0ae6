"""Group mappings: a group -> a project role, or -> the org's admin role (no project;
docs/sso.md#org-role-from-groups). Added and removed on the Group sync page and
through the API; ``groupsync.service`` re-exports these."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from workspace.core.events import record_event
from workspace.core.models import OrgRole, Project, ProjectRole
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.identity.groupsync import held, org_role
from workspace.identity.groupsync.models import GroupMapping

#: A mapping's target: a project (``project_id``) or the org itself.
TARGETS = ("project", "org")
NEVER_OWNER = (
    "A group can make people admins of the organization, never owners: owners are "
    "named by hand on the Members page. Choose the role admin."
)


def list_mappings(org_id: uuid.UUID) -> list[GroupMapping]:
    return list(
        db.session.scalars(
            select(GroupMapping)
            .where(GroupMapping.org_id == org_id)
            .order_by(GroupMapping.idp_group, GroupMapping.created_at)
        )
    )


def _check_group(idp_group: str) -> str:
    group = (idp_group or "").strip()
    if not group or len(group) > 256:
        raise ServiceError(
            "Enter the IdP group name exactly as the provider sends it (at most 256 characters).",
            field="idp_group",
        )
    return group


def _org_target(org_id: uuid.UUID, group: str, role: str) -> None:
    if role == OrgRole.OWNER:
        raise ServiceError(NEVER_OWNER, field="role")
    if role != org_role.ROLE:
        raise ServiceError("A mapping to the organization grants the role admin.", field="role")
    taken = db.session.scalar(
        select(GroupMapping.id).where(
            GroupMapping.org_id == org_id,
            GroupMapping.idp_group == group,
            GroupMapping.project_id.is_(None),
        )
    )
    if taken is not None:
        raise ConflictError(
            f"The group {group!r} already makes people admins of the organization.",
            field="idp_group",
        )


def add_mapping(
    org_id: uuid.UUID,
    idp_group: str,
    project_id: uuid.UUID | None,
    role: str,
    *,
    actor_id: uuid.UUID | None,
    target: str = "project",
) -> GroupMapping:
    """Map a group to a project role, or (``target`` "org") to the org's admin role.
    Recorded as ``groupsync.mapping.added``."""
    group = _check_group(idp_group)
    if target not in TARGETS:
        raise ServiceError("The target is a project or the organization.", field="target")
    if target == "org":
        if project_id is not None:
            raise ServiceError(
                "A mapping to the organization names no project; leave the project out.",
                field="project_id",
            )
        _org_target(org_id, group, role)
        where = "the organization"
    else:
        try:
            role = ProjectRole(role).value
        except ValueError as exc:
            raise ServiceError(
                "The role is one of viewer, commenter, member, admin.", field="role"
            ) from exc
        if project_id is None:
            raise ServiceError(
                "Choose the project the group grants a role in, or the organization.",
                field="project_id",
            )
        project = db.session.get(Project, project_id)
        if project is None or project.org_id != org_id:
            raise ServiceError("No such project in this organization.", field="project_id")
        where = project.name  # read now: a failed flush leaves the session unusable
    mapping = GroupMapping(org_id=org_id, idp_group=group, project_id=project_id, role=role)
    db.session.add(mapping)
    try:
        db.session.flush()
    except IntegrityError as exc:
        raise ConflictError(
            f"The group {group!r} is already mapped to {where}; remove "
            "that mapping to change its role.",
            field="idp_group",
        ) from exc
    record_event(
        org_id,
        "groupsync.mapping.added",
        actor_id=actor_id,
        subject=group,
        mapping_id=str(mapping.id),
        project_id=str(project_id) if project_id else None,
        target=target,
        role=role,
    )
    db.session.flush()
    return mapping


def remove_mapping(org_id: uuid.UUID, mapping_id: uuid.UUID, *, actor_id: uuid.UUID | None) -> None:
    """Remove a mapping. One to the org demotes at once the admins it made, unless
    another of their groups still grants it (an admin's rights should not outlive the
    mapping until their next sign-in); project roles follow at the next reconcile."""
    mapping = db.session.get(GroupMapping, mapping_id)
    if mapping is None or mapping.org_id != org_id:
        raise NotFoundError("No such group mapping in this organization.")
    record_event(
        org_id,
        "groupsync.mapping.removed",
        actor_id=actor_id,
        subject=mapping.idp_group,
        mapping_id=str(mapping.id),
        project_id=str(mapping.project_id) if mapping.project_id else None,
        role=mapping.role,
    )
    group, to_org = mapping.idp_group, mapping.project_id is None
    db.session.delete(mapping)
    db.session.flush()
    if to_org:
        # In id order, as SCIM locks people, so the two cannot deadlock.
        for member in sorted(org_role.synced_admins_of(org_id, group), key=lambda m: str(m.id)):
            org_role.lock_person(org_id, member.account_id)
            grant = org_role.org_grant(org_id, held.held_groups(org_id, member.account_id))
            change = org_role.plan_change(member, grant, remove_stale=True, source="mapping")
            org_role.apply(member, change, grant)
            if change is not None:
                record_event(
                    org_id,
                    "groupsync.org_role_revoked",
                    actor_id=actor_id,
                    subject=member.account.email,
                    role=change.role,
                    from_role=change.from_role,
                    group=change.group,
                )
        db.session.flush()
