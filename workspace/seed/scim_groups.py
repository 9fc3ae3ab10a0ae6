"""The demo's SCIM Groups (docs/scim.md#groups): Okta pushes two groups of SCIM
people, mapped to Platform; members come and go, one group is renamed and one
deleted, and group sync follows each change at once (``scim.group.*``, ``scim.sync.*``)."""

from __future__ import annotations

from scim2_models import Group
from sqlalchemy import select

from workspace.core.models import Project, ProjectMember, ProjectRole
from workspace.extensions import db
from workspace.identity.groupsync import service as groupsync
from workspace.scim import groups as scim_groups
from workspace.scim.resources import GROUP_SCHEMA
from workspace.seed.demo import Demo
from workspace.seed.people import PEOPLE

#: The SCIM group -> (project identifier, role) mappings.
MAPPINGS = [
    ("Platform Team", "PLAT", ProjectRole.MEMBER),
    ("Platform Leads", "PLAT", ProjectRole.ADMIN),
]


def _document(name: str, member_ids: list[str]) -> Group:
    return Group.model_validate(
        {
            "schemas": [GROUP_SCHEMA],
            "displayName": name,
            "members": [{"value": m} for m in member_ids],
        }
    )


def groups(demo: Demo) -> None:
    """After SCIM provisioned its people: three of those not yet in Platform go
    through its groups (added, promoted, demoted by a rename, removed)."""
    project: Project = demo.projects["PLAT"]
    taken = set(
        db.session.scalars(
            select(ProjectMember.account_id).where(ProjectMember.project_id == project.id)
        )
    )
    people = [
        demo.members[name]
        for name, _, via in PEOPLE
        if via == "scim" and demo.members[name].account_id not in taken
    ][:3]
    ids = [str(m.id) for m in people]
    admin = demo.people["Priya Raman"].id
    with demo.at(87):
        for group, identifier, role in MAPPINGS:
            groupsync.add_mapping(
                demo.org.id, group, demo.projects[identifier].id, role, actor_id=admin
            )
    caller = demo.scim_caller
    with demo.at(86):
        team = scim_groups.create_group(demo.org.id, _document("Platform Team", ids[:2]), caller)
    with demo.at(80):
        leads = scim_groups.create_group(demo.org.id, _document("Platform Leads", ids[:1]), caller)
    with demo.at(70):
        scim_groups.write_group(team, _document("Platform Team", ids), caller)
    with demo.at(50):
        view = scim_groups.get_group(demo.org.id, str(leads.group.id))
        scim_groups.write_group(view, _document("Platform Leads (2024)", ids[:1]), caller)
    with demo.at(40):
        view = scim_groups.get_group(demo.org.id, str(team.group.id))
        scim_groups.write_group(view, _document("Platform Team", ids[:2]), caller)
    with demo.at(30):
        scim_groups.delete_group(scim_groups.get_group(demo.org.id, str(leads.group.id)), caller)
