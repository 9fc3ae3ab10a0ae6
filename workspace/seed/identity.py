"""The demo's identity story: LDAP and SSO connections (one replaced, one switched
off at the end), a SCIM token, group mappings, the people SCIM provisions and SSO and
LDAP sign-ins bring, and what changes later (groups, a leave, account links, a leaver)."""

from __future__ import annotations

from scim2_models import Context
from sqlalchemy import select

from workspace.auth import linking, membership
from workspace.auth.linking import PENDING_LIFETIME
from workspace.auth.login import provision_member
from workspace.auth.models import PendingIdentityLink
from workspace.core.accounts import change_role
from workspace.core.events import record_event
from workspace.core.models import MembershipSource, OrgMember, OrgRole, ProjectMember, ProjectRole
from workspace.core.projects import set_project_member
from workspace.extensions import db
from workspace.identity.groupsync import service as groupsync
from workspace.identity.ldap import groups as ldap_groups
from workspace.identity.ldap import service as ldap
from workspace.identity.ldap.models import connection_for as ldap_connection_for
from workspace.identity.ldap.service import ConnectionInput as LdapInput
from workspace.identity.sso import connection as sso
from workspace.identity.sso.connection import ConnectionInput as SsoInput
from workspace.scim import tokens as scim_tokens
from workspace.scim import users as scim_users
from workspace.scim.resources import USER_SCHEMA, InputUser
from workspace.security import tokens
from workspace.seed import org_role_sync
from workspace.seed.demo import Demo
from workspace.seed.people import DEMO_DOMAIN, LEAVER, PEOPLE, email_of
from workspace.seed.projects import PROJECTS

#: IdP groups of the SSO people, at first and after a reorganisation (group sync
#: adds, changes and removes their synced project memberships).
SSO_GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "Kwame Mensah": (["eng-web"], ["eng-web"]),
    "Nora Lindqvist": (["all-staff"], ["all-staff", "eng-web"]),
    "Arjun Mehta": (["eng-mobile", "all-staff"], ["all-staff"]),
    "Clara Novak": (["platform-oncall"], ["platform-oncall"]),
    "Diego Herrera": (["eng-mobile"], ["eng-mobile", "platform-oncall"]),
    "Zoe Papadopoulos": (["all-staff", "eng-web"], ["all-staff", "eng-web"]),
}
#: IdP group -> (project identifier, role). "contractors" is added and later removed.
GROUP_MAPPINGS = [
    ("eng-web", "WEB", ProjectRole.MEMBER),
    ("all-staff", "WEB", ProjectRole.VIEWER),
    ("eng-mobile", "MOB", ProjectRole.MEMBER),
    ("platform-oncall", "PLAT", ProjectRole.ADMIN),
]
#: Directory people whose groups map to projects: groups at first sign-in, then later
#: (a role changes, a group is added, a group is dropped).
LDAP_GROUPS = {
    "Ben Carter": (["all-staff"], ["all-staff", "eng-web"]),
    "Lina Haddou": (["eng-web", "eng-mobile"], ["eng-mobile"]),
}


def connections(demo: Demo) -> None:
    """The LDAP connection (replaced once) and its group sync, the SSO connection
    (deleted and saved again) and the SCIM token (the first one revoked)."""
    admin = demo.people["Marcus Chen"].id
    ldap_input = dict(
        bind_dn="cn=workspace,ou=services,dc=acme,dc=test",
        search_base="ou=people,dc=acme,dc=test",
        search_filter="(&(objectClass=inetOrgPerson)(uid={username}))",
        bind_password="demo-placeholder-not-a-password",
    )
    with demo.at(105):
        ldap.save_connection(
            demo.org.id,
            LdapInput(server_uri="ldap://ldap-old.demo.invalid", use_tls=False, **ldap_input),
            actor_id=admin,
        )
    with demo.at(104):
        ldap.delete_connection(demo.org.id, actor_id=admin)
    with demo.at(104, -2):
        ldap.save_connection(
            demo.org.id,
            LdapInput(server_uri="ldaps://ldap.demo.invalid", **ldap_input),
            actor_id=admin,
        )
    with demo.at(103):
        ldap_groups.save_group_settings(
            ldap_connection_for(demo.org.id),
            ldap_groups.GroupSyncSettings(
                sync_groups_on_login=True,
                remove_stale_synced_memberships=True,
                group_search_base="ou=groups,dc=acme,dc=test",
            ),
            actor_id=admin,
        )
    sso_input = dict(
        email_domain=DEMO_DOMAIN,
        issuer_url="https://sso.demo.invalid",
        client_id="workspace-demo",
        client_secret="demo-placeholder-not-a-secret",
        sync_groups_on_login=True,
        remove_stale_synced_memberships=True,
    )
    with demo.at(100):
        sso.save_connection(demo.org.id, SsoInput(**sso_input), actor_id=admin)
    with demo.at(99):
        sso.delete_connection(demo.org.id, actor_id=admin)
    with demo.at(98):
        sso.save_connection(demo.org.id, SsoInput(**sso_input), actor_id=admin)
    with demo.at(97):
        scim_tokens.generate_token(demo.org.id, admin)
    with demo.at(96):
        scim_tokens.revoke_token(demo.org.id, admin)
    with demo.at(96, -1):
        prefix = scim_tokens.generate_token(demo.org.id, admin)[0].prefix
        demo.scim_caller = scim_tokens.Caller(prefix=prefix, minted_by=admin)


def mappings(demo: Demo) -> None:
    admin = demo.people["Marcus Chen"].id
    for i, (group, identifier, role) in enumerate(GROUP_MAPPINGS):
        with demo.at(94, i):
            groupsync.add_mapping(
                demo.org.id, group, demo.projects[identifier].id, role, actor_id=admin
            )
    with demo.at(93):
        extra = groupsync.add_mapping(
            demo.org.id,
            "contractors",
            demo.projects["PLAT"].id,
            ProjectRole.COMMENTER,
            actor_id=admin,
        )
    with demo.at(92):
        groupsync.remove_mapping(demo.org.id, extra.id, actor_id=admin)
    with demo.at(91):
        sso.set_enabled(demo.org.id, True, actor_id=admin)


def directory_people(demo: Demo) -> None:
    """SCIM provisions six people, SSO and LDAP sign-ins bring twelve more."""
    index = 0
    for name, _, via in PEOPLE:
        if via not in ("scim", "sso", "ldap"):
            continue
        index += 1
        first, last = name.split(" ", 1)
        email = email_of(name)
        days = 88 - index * 2.5
        if via == "scim":
            document = InputUser.model_validate(
                {
                    "schemas": [USER_SCHEMA],
                    "userName": email,
                    "externalId": f"okta-00u{index:04d}demo",
                    "name": {"givenName": first, "familyName": last},
                    "displayName": name,
                    "emails": [{"value": email, "type": "work", "primary": True}],
                    "active": True,
                },
                scim_ctx=Context.RESOURCE_CREATION_REQUEST,
            )
            with demo.at(days):
                user = scim_users.create_user(demo.org, document, demo.scim_caller)
            member = user.member
        else:
            with demo.at(days) as stamp:
                account, member, _ = provision_member(demo.org, email, name, via=via)
                stamp.actor_id = account.id  # they joined by signing in
                if via == "sso":
                    groups = SSO_GROUPS[name][0]
                    groupsync.reconcile(demo.org.id, account.id, email, groups, remove_stale=True)
                elif name in LDAP_GROUPS:
                    groupsync.reconcile(
                        demo.org.id,
                        account.id,
                        email,
                        LDAP_GROUPS[name][0],
                        remove_stale=True,
                        source="ldap",
                    )
            demo.login(member.account, via, days - 0.01)
        demo.people[name] = member.account
        demo.members[name] = member
        if via != "sso":  # SSO people get their projects from group sync
            project = demo.projects[PROJECTS[index % len(PROJECTS)][1]]
            with demo.at(days - 0.5):
                set_project_member(
                    project,
                    member.account_id,
                    ProjectRole.MEMBER,
                    actor_id=demo.people["Priya Raman"].id,
                )


def reorganisation(demo: Demo) -> None:
    """Later events: groups change, a SCIM user goes on leave and comes back, two
    links to an existing account are asked for (one confirmed, one declined), an
    admin removes a leaver, SSO is switched off for the demo."""
    for i, (name, (_, later)) in enumerate(SSO_GROUPS.items()):
        account = demo.people[name]
        with demo.at(40 - i):
            groupsync.reconcile(demo.org.id, account.id, account.email, later, remove_stale=True)
        demo.login(account, "sso", 40 - i - 0.01)
    for i, (name, (_, later)) in enumerate(LDAP_GROUPS.items()):
        account = demo.people[name]
        with demo.at(38 - i):
            groupsync.reconcile(
                demo.org.id,
                account.id,
                account.email,
                later,
                remove_stale=True,
                source="ldap",
            )
        demo.login(account, "ldap", 38 - i - 0.01)
    with demo.at(36):
        # A directory outage at one sign-in: the sync is skipped, the sign-in goes on.
        account = demo.people["Omar Saleh"]
        record_event(
            demo.org.id,
            "ldap.sync.skipped",
            subject=account.email,
            reason="unreachable",
            message="The directory did not answer in time; memberships were left as they were.",
        )
    with demo.at(35):
        # An SSO sign-in whose provider sent no groups claim: roles stay as they are.
        account = demo.people["Omar Saleh"]
        record_event(
            demo.org.id,
            "sso.sync.skipped",
            subject=account.email,
            reason="no_groups_claim",
            message="The identity provider sent no 'groups' claim, so project roles were "
            "left as they are.",
        )
    on_leave = demo.members["Leila Farahani"]
    for days, active in ((45, False), (20, True)):
        user = scim_users.get_user(demo.org.id, str(on_leave.id))
        document = scim_users.scim_document(user).model_copy(update={"active": active})
        with demo.at(days):
            scim_users.replace_user(user, document, demo.scim_caller)
    for days, name, source, confirmed in (
        (60, "Chloe Dubois", "sso", True),
        (30, "Rafael Souza", "ldap", False),
    ):
        account = demo.people[name]
        with demo.at(days, actor_id=account.id):
            pending = PendingIdentityLink(
                token_hash=tokens.digest(tokens.generate("")),
                account_id=account.id,
                org_id=demo.org.id,
                source=source,
                expires_at=demo.ago(days) + PENDING_LIFETIME,
            )
            db.session.add(pending)
            # linking.request_link commits on its own (the sign-in it interrupts is
            # refused); the seed writes its row and event inside the seed's commit.
            record_event(demo.org.id, "auth.link.requested", subject=account.email, source=source)
            db.session.flush()
        with demo.at(days, -0.1, actor_id=account.id):
            if confirmed:
                linking.confirm(pending)
            else:
                linking.cancel(pending)
    with demo.at(33):
        owner = db.session.scalar(
            select(OrgMember).where(
                OrgMember.org_id == demo.org.id, OrgMember.account_id == demo.owner.id
            )
        )
        change_role(demo.members["Sofia Alvarez"], OrgRole.ADMIN, actor=owner)
    with demo.at(14):
        membership.deactivate_member(demo.members[LEAVER], actor_id=demo.people["Priya Raman"].id)
    with demo.at(1):
        sso.set_enabled(demo.org.id, False, actor_id=demo.people["Marcus Chen"].id)


def synced_groups(demo: Demo) -> None:
    """Name the IdP group that gave each synced membership (highest role wins); then
    the org's admins from groups (``org_role_sync``)."""
    org_role_sync.org_admins(demo)
    mappings = {(g, demo.projects[i].id): r for g, i, r in GROUP_MAPPINGS}
    for name, (_, groups) in SSO_GROUPS.items():
        rows = db.session.scalars(
            select(ProjectMember).where(
                ProjectMember.account_id == demo.people[name].id,
                ProjectMember.source == MembershipSource.SYNCED,
            )
        )
        for row in rows:
            if row.synced_group:
                continue
            matching = [g for g in groups if (g, row.project_id) in mappings]
            matching.sort(key=lambda g: ProjectRole(mappings[(g, row.project_id)]).rank)
            row.synced_group = matching[-1] if matching else None
