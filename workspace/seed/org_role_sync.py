"""The demo's org admins from groups (docs/sso.md#org-role-from-groups): the org maps
the group "Workspace Admins" to its admin role. Okta pushes it over SCIM with two
people (one later leaves the group), an SSO sign-in and a directory sign-in carry it
and later do not, and a second mapping is removed, which demotes the admin it made.
Each change is in the audit log (``<source>.sync.org_role_granted|revoked``,
``groupsync.org_role_revoked``); one synced admin stays, for the members page, after
an admin demoted them by hand and then handed the role back to group sync
(``member.role_changed``, ``groupsync.org_role_handed_back``)."""

from __future__ import annotations

from scim2_models import Group

from workspace.core import accounts
from workspace.core.models import OrgRole
from workspace.identity.groupsync import org_role
from workspace.identity.groupsync import service as groupsync
from workspace.scim import groups as scim_groups
from workspace.scim.resources import GROUP_SCHEMA
from workspace.seed.demo import Demo
from workspace.seed.people import PEOPLE

GROUP = "Workspace Admins"
#: A mapping the admins add and then remove.
TEMPORARY = "it-helpdesk"


def _group(member_ids: list[str]) -> Group:
    members = [{"value": m} for m in member_ids]
    return Group.model_validate(
        {"schemas": [GROUP_SCHEMA], "displayName": GROUP, "members": members}
    )


def org_admins(demo: Demo) -> None:
    """After the reorganisation; the SSO and directory people are the ones whose
    groups ``identity`` seeds."""
    org_id, admin = demo.org.id, demo.people["Priya Raman"].id
    with demo.at(26):
        groupsync.add_mapping(org_id, GROUP, None, "admin", actor_id=admin, target="org")
        groupsync.add_mapping(org_id, TEMPORARY, None, "admin", actor_id=admin, target="org")
    scim_people = [demo.members[n] for n, _, via in PEOPLE if via == "scim"][-2:]
    ids = [str(m.id) for m in scim_people]
    with demo.at(25):
        pushed = scim_groups.create_group(org_id, _group(ids), demo.scim_caller)
    with demo.at(12):
        view = scim_groups.get_group(org_id, str(pushed.group.id))
        scim_groups.write_group(view, _group(ids[:1]), demo.scim_caller)
    for days, source, name, groups in (
        (24, "sso", "Kwame Mensah", ["eng-web", GROUP]),
        (23, "ldap", "Ben Carter", ["all-staff", "eng-web", GROUP]),
        (22, "ldap", "Lina Haddou", ["eng-mobile", TEMPORARY]),
        (11, "sso", "Kwame Mensah", ["eng-web"]),
        (11, "ldap", "Ben Carter", ["all-staff", "eng-web"]),
    ):
        account = demo.people[name]
        with demo.at(days):
            groupsync.reconcile(
                org_id, account.id, account.email, groups, remove_stale=True, source=source
            )
    with demo.at(10):
        for mapping in groupsync.list_mappings(org_id):
            if mapping.idp_group == TEMPORARY:
                groupsync.remove_mapping(org_id, mapping.id, actor_id=admin)
    # The SCIM admin left is demoted by hand, which takes the role over from group
    # sync, and two days later handed back: their group makes them admin again.
    stays, by = scim_people[0], demo.members["Priya Raman"]
    with demo.at(9):
        accounts.change_role(stays, OrgRole.MEMBER, actor=by)
    with demo.at(7):
        org_role.hand_back(stays, actor_id=admin)
