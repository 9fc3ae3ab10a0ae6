"""Projects and their members; their workflow is in :mod:`workspace.core.workflow`."""

from __future__ import annotations

import re
import uuid
from typing import Any

from sqlalchemy import delete, select

from workspace.core.accounts import require_active_member
from workspace.core.events import record_event
from workspace.core.models import (
    Account,
    MembershipSource,
    OrgMember,
    Project,
    ProjectMember,
    ProjectRole,
    State,
    StateCategory,
    Task,
)
from workspace.dbfunctions import unicode_lower
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.transaction import run_deferred_triggers
from workspace.types import utcnow

#: The workflow every new project starts with; admins add more later.
DEFAULT_STATES = (
    ("Triage", StateCategory.TRIAGE, "#a78bfa"),
    ("Backlog", StateCategory.BACKLOG, "#94a3b8"),
    ("Todo", StateCategory.UNSTARTED, "#64748b"),
    ("In Progress", StateCategory.STARTED, "#f59e0b"),
    ("In Review", StateCategory.STARTED, "#3b82f6"),
    ("Done", StateCategory.COMPLETED, "#16a34a"),
    ("Cancelled", StateCategory.CANCELLED, "#ef4444"),
)
_IDENTIFIER_OK = re.compile(r"^[A-Z][A-Z0-9]{0,11}$")


def project_event(
    of: Project, kind: str, actor_id: uuid.UUID | None, subject: str, **data: Any
) -> None:
    """Record ``kind`` in the project's org, carrying the project's id (``data`` may
    carry a ``project`` name too)."""
    record_event(
        of.org_id,
        kind,
        actor_id=actor_id,
        subject=subject,
        project_id=str(of.id),
        **data,
    )


def _identifier_from(name: str) -> str:
    """Up to four of the name's letters and digits, starting with a letter ("Web App"
    WEBA, "3D Lab" P3DL); "PRJ" for a name with none ("日本語", "!!!")."""
    letters = re.sub(r"[^A-Za-z0-9]", "", name).upper()
    if not letters:
        return "PRJ"
    return letters[:4] if letters[0].isalpha() else ("P" + letters)[:4]


def _free_identifier(org_id: uuid.UUID, stem: str) -> str:
    """``stem``, or the first of ``stem``2, ``stem``3, … no project of the org uses:
    a derived identifier never refuses a second project of a similar name."""
    taken = set(
        db.session.scalars(
            select(Project.identifier).where(
                Project.org_id == org_id, Project.identifier.like(f"{stem}%")
            )
        )
    )
    number = 1
    candidate = stem
    while candidate in taken:
        number += 1
        candidate = f"{stem}{number}"
    return candidate


def create_project(
    org_id: uuid.UUID,
    creator_id: uuid.UUID,
    name: str,
    identifier: str | None = None,
    description: str = "",
) -> Project:
    """A project with the default workflow; its creator becomes a (manual) admin.
    Without an ``identifier`` one is derived from the name, numbered past any the org
    uses; a given one that is taken is refused."""
    identifier = (identifier or _free_identifier(org_id, _identifier_from(name))).upper()
    if not _IDENTIFIER_OK.match(identifier):
        raise ServiceError(
            "An identifier starts with a letter and has up to 12 letters or digits.",
            field="identifier",
        )
    taken = db.session.scalar(
        select(Project.id).where(Project.org_id == org_id, Project.identifier == identifier)
    )
    if taken:
        raise ConflictError(
            f"Another project already uses the identifier {identifier}.", field="identifier"
        )
    project = Project(org_id=org_id, name=name, identifier=identifier, description=description)
    db.session.add(project)
    db.session.flush()
    for position, (state_name, category, color) in enumerate(DEFAULT_STATES):
        db.session.add(
            State(
                project_id=project.id,
                name=state_name,
                category=category,
                color=color,
                position=position,
                is_default=category == StateCategory.BACKLOG,
            )
        )
    db.session.add(
        ProjectMember(
            project_id=project.id,
            account_id=creator_id,
            role=ProjectRole.ADMIN,
            source=MembershipSource.MANUAL,
        )
    )
    project_event(project, "project.created", creator_id, name)
    db.session.flush()
    return project


def get_project(org_id: uuid.UUID, project_id: uuid.UUID) -> Project:
    project = db.session.get(Project, project_id)
    if project is None or project.org_id != org_id:
        raise NotFoundError("No such project in this organization.")
    return project


def list_projects(org_id: uuid.UUID, *, include_archived: bool = False) -> list[Project]:
    """The org's projects by name: the live ones, with ``include_archived`` every one."""
    query = select(Project).where(Project.org_id == org_id)
    if not include_archived:
        query = query.where(Project.archived_at.is_(None))
    return list(db.session.scalars(query.order_by(Project.name)))


def update_project(
    project: Project,
    actor_id: uuid.UUID | None,
    *,
    name: str | None = None,
    description: str | None = None,
    archived: bool | None = None,
) -> Project:
    """Rename, describe, archive or restore; records ``project.updated`` with what
    actually changed (``old -> new`` per field), and nothing when nothing did."""
    changes: dict[str, list] = {}
    if name is not None and name != project.name:
        if not name.strip():
            raise ServiceError("Give the project a name.", field="name")
        changes["name"] = [project.name, name]
        project.name = name
    if description is not None and description != project.description:
        changes["description"] = [project.description, description]
        project.description = description
    if archived is not None and archived != (project.archived_at is not None):
        changes["archived"] = [not archived, archived]
        project.archived_at = utcnow() if archived else None
    if changes:
        project_event(project, "project.updated", actor_id, project.name, changes=changes)
    db.session.flush()
    return project


def delete_project(project: Project, actor_id: uuid.UUID) -> None:
    project_event(project, "project.deleted", actor_id, project.name)
    # The tasks go first, while their project exists: the rollups' triggers take each
    # task out of its project's rows, which the project's own delete would have
    # removed already when the cascade reached the tasks (a foreign key failure).
    db.session.execute(delete(Task).where(Task.project_id == project.id))
    # PostgreSQL queues those triggers for the COMMIT (migration 0036): run them now.
    run_deferred_triggers()
    db.session.delete(project)


# -- members ---------------------------------------------------------------------------


def list_project_members(project_id: uuid.UUID) -> list[ProjectMember]:
    """The project's members, each with ``org_active``: a person deactivated in the
    org keeps the row (and is listed apart, without role controls) until removed."""
    rows = db.session.execute(
        select(ProjectMember, OrgMember.active)
        .join(Project, Project.id == ProjectMember.project_id)
        .outerjoin(
            OrgMember,
            (OrgMember.org_id == Project.org_id)
            & (OrgMember.account_id == ProjectMember.account_id),
        )
        .where(ProjectMember.project_id == project_id)
        .order_by(ProjectMember.created_at)
    ).all()
    for member, active in rows:
        member.org_active = bool(active)
    return [member for member, _ in rows]


def set_project_member(
    project: Project,
    account_id: uuid.UUID,
    role: ProjectRole,
    *,
    source: MembershipSource = MembershipSource.MANUAL,
    actor_id: uuid.UUID | None = None,
) -> ProjectMember:
    """Add an org member to the project, or change a manual member's role. Records
    ``project.member_added`` or ``project.member_changed``.

    A synced membership belongs to IdP group sync: a manual change is refused (409)
    with the group that owns it; change the group mapping or the person's groups."""
    require_active_member(project.org_id, account_id, field="account_id")
    member = db.session.scalar(
        select(ProjectMember).where(
            ProjectMember.project_id == project.id, ProjectMember.account_id == account_id
        )
    )
    if member is not None and source == MembershipSource.MANUAL:
        refuse_synced_change(member)
    if member is None:
        member = ProjectMember(
            project_id=project.id, account_id=account_id, role=role, source=source
        )
        db.session.add(member)
        kind, old_role = "project.member_added", None
    else:
        kind, old_role = "project.member_changed", str(member.role)
        member.role, member.source = role, source
    db.session.flush()
    project_event(
        project,
        kind,
        actor_id,
        member.account.email,
        role=str(role),
        old_role=old_role,
        source=str(source),
    )
    return member


def remove_project_member(member: ProjectMember, actor_id: uuid.UUID | None) -> None:
    """Take a manual member off the project; their org membership and work stay.
    A synced membership is refused: group sync owns it."""
    refuse_synced_change(member)
    project = db.session.get(Project, member.project_id)
    project_event(
        project, "project.member_removed", actor_id, member.account.email, role=str(member.role)
    )
    db.session.delete(member)
    db.session.flush()


def member_candidates(project: Project, search: str | None = None) -> list[Any]:
    """Active org members who are not in the project yet (people and agents), by name;
    ``search`` narrows to names or emails containing it (any case)."""
    in_project = select(ProjectMember.account_id).where(ProjectMember.project_id == project.id)
    query = (
        select(Account)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == project.org_id,
            OrgMember.active.is_(True),
            Account.id.not_in(in_project),
        )
    )
    if search and search.strip():
        needle = f"%{search.strip().lower()}%"
        query = query.where(
            (unicode_lower(Account.name).like(needle)) | (unicode_lower(Account.email).like(needle))
        )
    return list(db.session.scalars(query.order_by(Account.name, Account.email).limit(200)))


def project_admins(project: Project) -> list[str]:
    """Names of the project's admins (org owners and admins also count as admins)."""
    return [
        m.account.name or m.account.email
        for m in list_project_members(project.id)
        if m.role == ProjectRole.ADMIN and m.org_active
    ]


def refuse_synced_change(member: ProjectMember) -> None:
    """A synced membership is read-only for people: group sync would undo the change at
    the next sign-in, so it is refused with where the role comes from."""
    if member.source != MembershipSource.SYNCED:
        return
    group = f" ({member.synced_from})" if member.synced_from else ""
    raise ConflictError(
        f"{member.account.email}'s membership is managed by group sync{group}. Change the "
        "group mapping in Settings > Group sync, or the person's groups at the "
        "identity provider or directory.",
        field="account_id",
    )


def get_project_by_identifier(org_id: uuid.UUID, identifier: str) -> Project:
    """The project an identifier like ``WEB`` names (case-insensitive), as agents and
    people name it; 404 for anything else."""
    project = db.session.scalar(
        select(Project).where(
            Project.org_id == org_id, Project.identifier == identifier.strip().upper()
        )
    )
    if project is None:
        raise NotFoundError("No such project in this organization.", field="project_id")
    return project


def get_project_member(project: Project, member_id: uuid.UUID) -> ProjectMember:
    member = db.session.get(ProjectMember, member_id)
    if member is None or member.project_id != project.id:
        raise NotFoundError("No such member in this project.")
    return member
