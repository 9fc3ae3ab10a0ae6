"""Demo data: the demo org Acme (docs/demo.md) and bulk tasks with a state-change
history (``flask bench-data`` lives in workspace/benchdata.py and reuses the helpers).

Rows are generated in Python and written with bulk inserts, which is what makes a
million tasks take minutes rather than hours. The generator walks each task through
the workflow the way people do (backlog -> todo -> in progress -> done, sometimes
cancelled), writing one activity row per transition, so flow and forecast have data.
"""

from __future__ import annotations

import random
import secrets
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise

from scim2_models import Context
from sqlalchemy import event, insert, select

from workspace.agents.members import create_agent, get_agent, remove_agent
from workspace.agents.settings import remove_settings as remove_ai_settings
from workspace.agents.settings import save_settings
from workspace.analytics.dashboards.models import Dashboard, Visibility
from workspace.analytics.dashboards.service import (
    add_widget,
    create_dashboard,
    delete_dashboard,
    remove_widget,
    reorder_widgets,
    set_visibility,
    update_dashboard,
    update_widget,
)
from workspace.auth import linking, membership
from workspace.auth.api_tokens import create_token, revoke_token
from workspace.auth.linking import PENDING_LIFETIME
from workspace.auth.login import provision_member
from workspace.auth.models import AuthSession, PendingIdentityLink
from workspace.auth.passwords import set_password
from workspace.core.accounts import add_member, change_role, ensure_account
from workspace.core.comments import add_comment
from workspace.core.events import record_event
from workspace.core.models import (
    Account,
    Cycle,
    Event,
    MembershipSource,
    Module,
    Org,
    OrgMember,
    OrgRole,
    Priority,
    Project,
    ProjectMember,
    ProjectRole,
    State,
    StateCategory,
    Task,
    TaskActivity,
    TaskKind,
)
from workspace.core.models.domains import DomainState
from workspace.core.orgs import create_org, update_org
from workspace.core.projects import (
    create_project,
    delete_project,
    list_project_members,
    remove_project_member,
    set_project_member,
    update_project,
)
from workspace.core.tasks import update_task
from workspace.core.workflow import (
    create_cycle,
    create_module,
    create_state,
    delete_state,
    update_cycle,
    update_module,
    update_state,
)
from workspace.extensions import db
from workspace.identity import groupsync
from workspace.identity.domains.service import add_domain, remove_domain
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

AGENTS = [
    ("Triage Bot", "Sorts incoming work and files bugs."),
    ("Release Agent", "Prepares release notes and closes shipped tasks."),
    ("Docs Agent", "Keeps documentation tasks moving."),
]
PROJECTS = [("Web App", "WEB"), ("Mobile", "MOB"), ("Platform", "PLAT")]
MODULES = ["Auth", "Billing", "Search", "Onboarding", "Reporting"]
VERBS = ["Fix", "Add", "Refactor", "Document", "Investigate", "Design", "Ship", "Review"]
NOUNS = [
    "login flow",
    "invoice export",
    "search ranking",
    "push notifications",
    "CSV import",
    "rate limiter",
    "audit log",
    "dark mode",
    "settings page",
    "API pagination",
    "webhook retries",
    "SSO button",
    "empty states",
    "chart tooltips",
    "task board",
]

_PRIORITY_WEIGHTS = [
    (Priority.URGENT, 5),
    (Priority.HIGH, 15),
    (Priority.MEDIUM, 35),
    (Priority.LOW, 25),
    (Priority.NONE, 20),
]
_KIND_WEIGHTS = [
    (TaskKind.TASK, 50),
    (TaskKind.BUG, 25),
    (TaskKind.FEATURE, 20),
    (TaskKind.EPIC, 5),
]
# Where a task ends up: mostly done or in flight; a little cancelled or still in triage.
_FINAL_WEIGHTS = [
    (StateCategory.COMPLETED, 40),
    (StateCategory.STARTED, 18),
    (StateCategory.UNSTARTED, 15),
    (StateCategory.BACKLOG, 17),
    (StateCategory.CANCELLED, 6),
    (StateCategory.TRIAGE, 4),
]
_PATH = [
    StateCategory.BACKLOG,
    StateCategory.UNSTARTED,
    StateCategory.STARTED,
    StateCategory.COMPLETED,
]


def _pick(rng: random.Random, weighted):
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights)[0]


@dataclass
class ProjectShape:
    project_id: uuid.UUID
    org_id: uuid.UUID
    states: dict[str, list[State]]
    cycle_ids: list[uuid.UUID]
    module_ids: list[uuid.UUID]
    next_sequence: int = 1


def generate_tasks(
    rng: random.Random,
    shape: ProjectShape,
    count: int,
    assignee_ids: list[uuid.UUID],
    now: datetime,
    days: int = 120,
    actor_ids: list[uuid.UUID] | None = None,
    extras: bool = False,
) -> tuple[list[dict], list[dict]]:
    """``count`` task rows and their activity rows for one project."""
    actors = actor_ids or assignee_ids
    task_rows, activity_rows = [], []
    for _ in range(count):
        task_id = uuid.uuid4()
        created = now - timedelta(days=rng.uniform(0, days))
        final = _pick(rng, _FINAL_WEIGHTS)
        actor = rng.choice(actors)
        if final == StateCategory.TRIAGE:
            steps = [StateCategory.TRIAGE]
        elif final == StateCategory.CANCELLED:
            steps = [*_PATH[: rng.randint(1, 3)], StateCategory.CANCELLED]
        else:
            steps = _PATH[: _PATH.index(final) + 1]
            steps = steps[rng.randint(0, max(0, len(steps) - 2)) :] if len(steps) > 1 else steps
        states = [rng.choice(shape.states[c]) for c in steps]
        at = created
        activity_rows.append(
            dict(
                id=uuid.uuid4(),
                org_id=shape.org_id,
                task_id=task_id,
                actor_id=actor,
                field="created",
                old_value=None,
                new_value=None,
                old_category=None,
                new_category=states[0].category,
                created_at=at,
            )
        )
        for prev, nxt in pairwise(states):
            at = min(now, at + timedelta(hours=rng.expovariate(1 / 60)))
            activity_rows.append(
                dict(
                    id=uuid.uuid4(),
                    org_id=shape.org_id,
                    task_id=task_id,
                    actor_id=rng.choice(actors),
                    field="state",
                    old_value=prev.name,
                    new_value=nxt.name,
                    old_category=prev.category,
                    new_category=nxt.category,
                    created_at=at,
                )
            )
        state = states[-1]
        due = None
        if rng.random() < 0.6:
            due = (created + timedelta(days=rng.randint(3, 60))).date()
        task_rows.append(
            dict(
                id=task_id,
                org_id=shape.org_id,
                project_id=shape.project_id,
                sequence=shape.next_sequence,
                title=f"{rng.choice(VERBS)} {rng.choice(NOUNS)}",
                description="",
                state_id=state.id,
                state_category=state.category,
                priority=_pick(rng, _PRIORITY_WEIGHTS),
                kind=_pick(rng, _KIND_WEIGHTS),
                assignee_id=rng.choice(assignee_ids) if rng.random() < 0.85 else None,
                cycle_id=rng.choice(shape.cycle_ids)
                if shape.cycle_ids and rng.random() < 0.7
                else None,
                module_id=rng.choice(shape.module_ids)
                if shape.module_ids and rng.random() < 0.6
                else None,
                created_by_id=actor,
                due_date=due,
                is_draft=extras and rng.random() < 0.01,
                created_at=created,
                updated_at=at,
                # The last state change written above, else the creation.
                state_entered_at=at,
                completed_at=at if state.category == StateCategory.COMPLETED else None,
                archived_at=at if extras and rng.random() < 0.03 else None,
                deleted_at=at if extras and rng.random() < 0.01 else None,
            )
        )
        shape.next_sequence += 1
    return task_rows, activity_rows


def write_rows(task_rows: list[dict], activity_rows: list[dict], batch: int = 5000) -> None:
    # Core executemany on the tables with the same keys in every row: one statement
    # per batch (the ORM bulk path split runs of differing keys into single rows).
    for i in range(0, len(task_rows), batch):
        db.session.execute(insert(Task.__table__), task_rows[i : i + batch])
    for i in range(0, len(activity_rows), batch):
        db.session.execute(insert(TaskActivity.__table__), activity_rows[i : i + batch])


def project_shape(
    project: Project,
    rng: random.Random,
    cycles: int,
    modules: int,
    today: date,
    *,
    actor_id: uuid.UUID | None = None,
) -> ProjectShape:
    for i in range(cycles):
        start = today - timedelta(days=14 * (cycles - i - 1) + 7)
        create_cycle(
            project, f"Sprint {i + 1}", start, start + timedelta(days=13), actor_id=actor_id
        )
    for name in rng.sample(MODULES, min(modules, len(MODULES))):
        create_module(project, name, actor_id=actor_id)
    db.session.flush()
    states: dict[str, list[State]] = {}
    for state in db.session.scalars(select(State).where(State.project_id == project.id)):
        states.setdefault(state.category, []).append(state)
    return ProjectShape(
        project_id=project.id,
        org_id=project.org_id,
        states=states,
        cycle_ids=list(db.session.scalars(select(Cycle.id).where(Cycle.project_id == project.id))),
        module_ids=list(
            db.session.scalars(select(Module.id).where(Module.project_id == project.id))
        ),
        next_sequence=project.next_sequence,
    )


# -- the demo org ------------------------------------------------------------------------
#
# docs/demo.md says what the demo holds and why. Everything below goes through the
# services the app itself uses, so the audit trail, the memberships and the settings
# are the ones a real org would have; the few places that cannot (a DNS lookup, a
# sign-in's session cookie) write the same rows and events directly and say so.

DEMO_DOMAIN = "acme.test"
OWNER_EMAIL = f"owner@{DEMO_DOMAIN}"
OWNER_NAME = "Olivia Bennett"

#: (name, org role, how they joined). Forty distinct people: no two share a name.
PEOPLE: list[tuple[str, str, str]] = [
    ("Priya Raman", OrgRole.ADMIN, "manual"),
    ("Marcus Chen", OrgRole.ADMIN, "manual"),
    ("Sofia Alvarez", OrgRole.MEMBER, "manual"),
    ("Daniel Okafor", OrgRole.MEMBER, "manual"),
    ("Hannah Weber", OrgRole.MEMBER, "manual"),
    ("Kenji Tanaka", OrgRole.MEMBER, "manual"),
    ("Amara Nwosu", OrgRole.MEMBER, "manual"),
    ("Lucas Moreau", OrgRole.MEMBER, "manual"),
    ("Ingrid Larsen", OrgRole.MEMBER, "manual"),
    ("Mateo Rossi", OrgRole.MEMBER, "manual"),
    ("Aisha Khan", OrgRole.MEMBER, "manual"),
    ("Tom Becker", OrgRole.MEMBER, "manual"),
    ("Elena Petrova", OrgRole.MEMBER, "manual"),
    ("Samuel Adeyemi", OrgRole.MEMBER, "manual"),
    ("Chloe Dubois", OrgRole.MEMBER, "password"),
    ("Rafael Souza", OrgRole.MEMBER, "password"),
    ("Mei Lin", OrgRole.MEMBER, "password"),
    ("Oliver Grant", OrgRole.MEMBER, "password"),
    ("Fatima Haddad", OrgRole.MEMBER, "password"),
    ("Jonas Schmidt", OrgRole.MEMBER, "password"),
    ("Grace Kim", OrgRole.MEMBER, "scim"),
    ("Noah Fischer", OrgRole.MEMBER, "scim"),
    ("Leila Farahani", OrgRole.MEMBER, "scim"),
    ("Ethan Brooks", OrgRole.MEMBER, "scim"),
    ("Yuki Sato", OrgRole.MEMBER, "scim"),
    ("Isabel Ortega", OrgRole.MEMBER, "scim"),
    ("Kwame Mensah", OrgRole.MEMBER, "sso"),
    ("Nora Lindqvist", OrgRole.MEMBER, "sso"),
    ("Arjun Mehta", OrgRole.MEMBER, "sso"),
    ("Clara Novak", OrgRole.MEMBER, "sso"),
    ("Diego Herrera", OrgRole.MEMBER, "sso"),
    ("Zoe Papadopoulos", OrgRole.MEMBER, "sso"),
    ("Ben Carter", OrgRole.MEMBER, "ldap"),
    ("Lina Haddou", OrgRole.MEMBER, "ldap"),
    ("Viktor Horvat", OrgRole.MEMBER, "ldap"),
    ("Maya Goldberg", OrgRole.MEMBER, "ldap"),
    ("Omar Saleh", OrgRole.MEMBER, "ldap"),
    ("Tariq Aziz", OrgRole.MEMBER, "ldap"),
    ("Julia Kowalski", OrgRole.MEMBER, "manual"),  # leaves: the deactivated member
    ("Felix Wagner", OrgRole.MEMBER, "manual"),
]
#: The person who left the company: deactivated by an admin, their work stays theirs.
LEAVER = "Julia Kowalski"
#: The agent that an admin retires: its membership and token end, its work stays.
RETIRED_AGENT = ("Legacy Importer", "Imported the old tracker's tickets; retired.")
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
COMMENTS = [
    "I can reproduce this on staging; attaching the steps to the description.",
    "Picked this up. First pass should be ready for review tomorrow.",
    "Does this need a migration, or is it code only?",
    "Code only. The schema already has the column.",
    "Moved the due date: we are waiting on the design review.",
    "Reviewed: looks good, one naming nit left inline.",
    "Customer reported this again today; bumping priority.",
    "Shipped behind the feature flag, rolling out to 10% first.",
    "Blocked on the API change in the Platform project.",
    "Added tests for the empty state and the error path.",
    "Could we split this? The export part is independent.",
    "Done on my side; QA can take it from here.",
]
AGENT_COMMENTS = {
    "Triage Bot": "Triaged: looks like {kind}, priority {priority}. Routed to the backlog.",
    "Release Agent": "Included in the next release notes; moving this along.",
    "Docs Agent": "Drafted the documentation change for this; moving it to the next state.",
}
DASHBOARDS = {
    "shared": (
        "Delivery overview",
        None,
        [
            dict(title="Open work by status", chart_type="bar", metric="open", dimension="status"),
            dict(
                title="Completed by project", chart_type="donut", metric="done", dimension="project"
            ),
            dict(
                title="Open bugs by priority",
                chart_type="bar",
                metric="open",
                dimension="priority",
                filter="kind = bug",
            ),
            dict(title="Work by kind", chart_type="pie", metric="count", dimension="kind"),
            dict(
                title="Who has open work",
                chart_type="table",
                metric="open",
                dimension="assignee",
            ),
        ],
    ),
    "private": (
        "My week",
        "assignee = currentUser()",
        [
            dict(title="My open tasks", chart_type="number", metric="open", dimension="status"),
            dict(
                title="My urgent and high",
                chart_type="bar",
                metric="open",
                dimension="priority",
                filter="priority IN (urgent, high)",
            ),
            dict(
                title="My work by project", chart_type="donut", metric="count", dimension="project"
            ),
            dict(title="What I finished", chart_type="bar", metric="done", dimension="kind"),
        ],
    ),
}


@dataclass
class DemoResult:
    org_id: uuid.UUID
    owner_email: str
    password: str


def _email(name: str) -> str:
    return name.lower().replace(" ", ".") + "@" + DEMO_DOMAIN


class _Stamp:
    """Back-dates what a service writes: every row the session gets while the stamp is
    open (events, memberships, comments, activity...) is given ``created_at = when``,
    so the audit trail and the members list tell a story over the past weeks instead
    of all happening in the second the seed ran."""

    def __init__(self) -> None:
        self.when: datetime | None = None
        self.rows: list = []
        self.actor_id: uuid.UUID | None = None

    def collect(self, session, instance) -> None:
        if self.when is not None:
            self.rows.append(instance)

    @contextmanager
    def at(self, when: datetime, actor_id: uuid.UUID | None = None):
        """``actor_id`` names who acted on the events a service records without one
        when the seed knows better (the admin who created an agent also put it on its
        projects; a person who signed in through SSO joined by doing so)."""
        self.when, self.rows, self.actor_id = when, [], actor_id
        try:
            yield self
        finally:
            actor_id = self.actor_id
            for row in self.rows:
                for column in ("created_at", "updated_at"):
                    if hasattr(row, column):
                        setattr(row, column, when)
                if actor_id is not None and isinstance(row, Event) and row.actor_id is None:
                    row.actor_id = actor_id
            self.when, self.rows = None, []


class _Demo:
    def __init__(self, rng: random.Random, now: datetime, stamp: _Stamp) -> None:
        self.rng, self.now, self.stamp = rng, now, stamp
        self.people: dict[str, Account] = {}
        self.members: dict[str, OrgMember] = {}
        self.projects: dict[str, Project] = {}
        self.agents: list[Account] = []

    def ago(self, days: float, hours: float = 0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def at(self, days: float, hours: float = 0, actor_id: uuid.UUID | None = None):
        return self.stamp.at(self.ago(days, hours), actor_id)

    def login(self, account: Account, method: str, days: float) -> None:
        # complete_login starts a browser session, which needs a request: this writes
        # the same session row (its raw key thrown away, so no cookie can use it) and
        # the same event, so members show a last sign-in and the log the sign-in.
        with self.at(days, self.rng.uniform(0, 8)) as stamp:
            db.session.add(
                AuthSession(
                    account_id=account.id,
                    token_hash=tokens.digest(tokens.generate("")),
                    method=method,
                    user_agent="Demo seed",
                    expires_at=stamp.when + timedelta(days=14),
                )
            )
            record_event(
                self.org.id,
                "auth.login",
                actor_id=account.id,
                subject=account.email,
                method=method,
            )

    # -- people ---------------------------------------------------------------------

    def org_and_people(self, password: str) -> None:
        with self.at(120):
            owner = ensure_account(OWNER_EMAIL, OWNER_NAME, email_verified=True)
            set_password(owner, password)
            self.org = create_org("Acme", owner, "acme")
        self.owner = owner
        with self.at(119):
            update_org(self.org, owner.id, name="Acme", timezone="Europe/Berlin")
        admins = [name for name, role, _ in PEOPLE if role == OrgRole.ADMIN]
        for index, (name, role, via) in enumerate(PEOPLE):
            if via not in ("manual", "password"):
                continue  # they arrive through SCIM, SSO or LDAP below
            account = ensure_account(_email(name), name, email_verified=True)
            if via == "password":
                # The demo password, hashed once (scrypt takes a third of a second).
                account.password_hash = owner.password_hash
                actor = account.id  # signed up on their own, on the org's domain
            else:
                actor = owner.id if name in admins else self.people[admins[index % 2]].id
            with self.at(118 - index * 1.5):
                self.members[name] = add_member(self.org, account, role, actor_id=actor, via=via)
            self.people[name] = account

    def domains(self) -> None:
        owner_id = self.owner.id
        with self.at(112):
            domain = add_domain(self.org.id, DEMO_DOMAIN, actor_id=owner_id)
        with self.at(112, -1):
            # verify_domain looks the TXT record up over DNS, which a demo domain does
            # not have; this is the failed first check and then the verification it
            # records, written the way the service writes them.
            record_event(
                self.org.id,
                "domain.verify_failed",
                actor_id=owner_id,
                subject=DEMO_DOMAIN,
                records_seen=0,
                nxdomain=False,
            )
        with self.at(111):
            domain.state = DomainState.VERIFIED
            domain.verified_at = self.ago(111)
            record_event(self.org.id, "domain.verified", actor_id=owner_id, subject=DEMO_DOMAIN)
            db.session.flush()
        with self.at(110):
            old = add_domain(self.org.id, "acme-legacy.test", actor_id=owner_id)
        with self.at(109):
            remove_domain(self.org.id, old.id, actor_id=owner_id)

    def identity(self) -> None:
        admin = self.people["Marcus Chen"].id
        ldap_input = dict(
            bind_dn="cn=workspace,ou=services,dc=acme,dc=test",
            search_base="ou=people,dc=acme,dc=test",
            search_filter="(&(objectClass=inetOrgPerson)(uid={username}))",
            bind_password="demo-placeholder-not-a-password",
        )
        with self.at(105):
            ldap.save_connection(
                self.org.id,
                LdapInput(server_uri="ldap://ldap-old.demo.invalid", use_tls=False, **ldap_input),
                actor_id=admin,
            )
        with self.at(104):
            ldap.delete_connection(self.org.id, actor_id=admin)
        with self.at(104, -2):
            ldap.save_connection(
                self.org.id,
                LdapInput(server_uri="ldaps://ldap.demo.invalid", **ldap_input),
                actor_id=admin,
            )
        with self.at(103):
            ldap_groups.save_group_settings(
                ldap_connection_for(self.org.id),
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
        with self.at(100):
            sso.save_connection(self.org.id, SsoInput(**sso_input), actor_id=admin)
        with self.at(99):
            sso.delete_connection(self.org.id, actor_id=admin)
        with self.at(98):
            sso.save_connection(self.org.id, SsoInput(**sso_input), actor_id=admin)
        with self.at(97):
            scim_tokens.generate_token(self.org.id, admin)
        with self.at(96):
            scim_tokens.revoke_token(self.org.id, admin)
        with self.at(96, -1):
            prefix = scim_tokens.generate_token(self.org.id, admin)[0].prefix
            self.scim_caller = scim_tokens.Caller(prefix=prefix, minted_by=admin)

    def mappings(self) -> None:
        admin = self.people["Marcus Chen"].id
        for i, (group, identifier, role) in enumerate(GROUP_MAPPINGS):
            with self.at(94, i):
                groupsync.add_mapping(
                    self.org.id, group, self.projects[identifier].id, role, actor_id=admin
                )
        with self.at(93):
            extra = groupsync.add_mapping(
                self.org.id,
                "contractors",
                self.projects["PLAT"].id,
                ProjectRole.COMMENTER,
                actor_id=admin,
            )
        with self.at(92):
            groupsync.remove_mapping(self.org.id, extra.id, actor_id=admin)
        with self.at(91):
            sso.set_enabled(self.org.id, True, actor_id=admin)

    def directory_people(self) -> None:
        """SCIM provisions six people, SSO and LDAP sign-ins bring twelve more."""
        index = 0
        for name, _, via in PEOPLE:
            if via not in ("scim", "sso", "ldap"):
                continue
            index += 1
            first, last = name.split(" ", 1)
            email = _email(name)
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
                with self.at(days):
                    user = scim_users.create_user(self.org, document, self.scim_caller)
                member = user.member
            else:
                with self.at(days) as stamp:
                    account, member, _ = provision_member(self.org, email, name, via=via)
                    stamp.actor_id = account.id  # they joined by signing in
                    if via == "sso":
                        groups = SSO_GROUPS[name][0]
                        groupsync.reconcile(
                            self.org.id, account.id, email, groups, remove_stale=True
                        )
                    elif name in LDAP_GROUPS:
                        groupsync.reconcile(
                            self.org.id,
                            account.id,
                            email,
                            LDAP_GROUPS[name][0],
                            remove_stale=True,
                            source="ldap",
                        )
                self.login(member.account, via, days - 0.01)
            self.people[name] = member.account
            self.members[name] = member
            if via != "sso":  # SSO people get their projects from group sync
                project = self.projects[PROJECTS[index % len(PROJECTS)][1]]
                with self.at(days - 0.5):
                    set_project_member(
                        project,
                        member.account_id,
                        ProjectRole.MEMBER,
                        actor_id=self.people["Priya Raman"].id,
                    )

    def reorganisation(self) -> None:
        """Later events: groups change, a SCIM user goes on leave and comes back, two
        links to an existing account are asked for (one confirmed, one declined), an
        admin removes a leaver, SSO is switched off for the demo."""
        for i, (name, (_, later)) in enumerate(SSO_GROUPS.items()):
            account = self.people[name]
            with self.at(40 - i):
                groupsync.reconcile(
                    self.org.id, account.id, account.email, later, remove_stale=True
                )
            self.login(account, "sso", 40 - i - 0.01)
        for i, (name, (_, later)) in enumerate(LDAP_GROUPS.items()):
            account = self.people[name]
            with self.at(38 - i):
                groupsync.reconcile(
                    self.org.id,
                    account.id,
                    account.email,
                    later,
                    remove_stale=True,
                    source="ldap",
                )
            self.login(account, "ldap", 38 - i - 0.01)
        with self.at(36):
            # A directory outage at one sign-in: the sync is skipped, the sign-in goes on.
            account = self.people["Omar Saleh"]
            record_event(
                self.org.id,
                "ldap.sync.skipped",
                subject=account.email,
                reason="unreachable",
                message="The directory did not answer in time; memberships were left as they were.",
            )
        with self.at(35):
            # An SSO sign-in whose provider sent no groups claim: roles stay as they are.
            account = self.people["Omar Saleh"]
            record_event(
                self.org.id,
                "sso.sync.skipped",
                subject=account.email,
                reason="no_groups_claim",
                message="The identity provider sent no 'groups' claim, so project roles were "
                "left as they are.",
            )
        on_leave = self.members["Leila Farahani"]
        for days, active in ((45, False), (20, True)):
            user = scim_users.get_user(self.org.id, str(on_leave.id))
            document = scim_users.scim_document(user).model_copy(update={"active": active})
            with self.at(days):
                scim_users.replace_user(user, document, self.scim_caller)
        for days, name, source, confirmed in (
            (60, "Chloe Dubois", "sso", True),
            (30, "Rafael Souza", "ldap", False),
        ):
            account = self.people[name]
            with self.at(days, actor_id=account.id):
                pending = PendingIdentityLink(
                    token_hash=tokens.digest(tokens.generate("")),
                    account_id=account.id,
                    org_id=self.org.id,
                    source=source,
                    expires_at=self.ago(days) + PENDING_LIFETIME,
                )
                db.session.add(pending)
                # linking.request_link commits on its own (the sign-in it interrupts is
                # refused); the seed writes its row and event inside the seed's commit.
                record_event(
                    self.org.id, "auth.link.requested", subject=account.email, source=source
                )
                db.session.flush()
            with self.at(days, -0.1, actor_id=account.id):
                if confirmed:
                    linking.confirm(pending)
                else:
                    linking.cancel(pending)
        with self.at(33):
            owner = db.session.scalar(
                select(OrgMember).where(
                    OrgMember.org_id == self.org.id, OrgMember.account_id == self.owner.id
                )
            )
            change_role(self.members["Sofia Alvarez"], OrgRole.ADMIN, actor=owner)
        with self.at(14):
            membership.deactivate_member(
                self.members[LEAVER], actor_id=self.people["Priya Raman"].id
            )
        with self.at(1):
            sso.set_enabled(self.org.id, False, actor_id=self.people["Marcus Chen"].id)

    # -- projects ---------------------------------------------------------------------

    def projects_and_teams(self) -> dict[str, ProjectShape]:
        rng, owner_id = self.rng, self.owner.id
        shapes = {}
        staff = [name for name, _, via in PEOPLE if via in ("manual", "password", "scim", "ldap")]
        for offset, (name, identifier) in enumerate(PROJECTS):
            with self.at(115 - offset):
                project = create_project(
                    self.org.id, owner_id, name, identifier, f"The {name} team's work."
                )
            if identifier == "WEB":
                self.web_workflow(project)
            with self.at(115 - offset, -1):
                shapes[identifier] = project_shape(
                    project, rng, cycles=6, modules=4, today=self.now.date(), actor_id=owner_id
                )
            self.projects[identifier] = project
            team = rng.sample([n for n in staff if n in self.people], 14)
            roles = [ProjectRole.ADMIN, ProjectRole.VIEWER, ProjectRole.COMMENTER] + [
                ProjectRole.MEMBER
            ] * 11
            for i, (person, role) in enumerate(zip(team, roles, strict=True)):
                with self.at(114 - offset, i * 0.2):
                    set_project_member(project, self.people[person].id, role, actor_id=owner_id)
        web = self.projects["WEB"]
        with self.at(90):
            cycle = db.session.scalar(
                select(Cycle).where(Cycle.project_id == web.id).order_by(Cycle.start_date.desc())
            )
            update_cycle(web, cycle, owner_id, {"name": f"{cycle.name}: launch"})
        with self.at(85):
            module = db.session.scalar(
                select(Module).where(Module.project_id == web.id).order_by(Module.name)
            )
            update_module(web, module, owner_id, {"description": f"Everything {module.name}."})
        with self.at(65):
            update_project(
                web, owner_id, description="Customer-facing web app: sign-up, billing, search."
            )
        with self.at(50):
            sandbox = create_project(self.org.id, owner_id, "Sandbox", "SBX", "Try things here.")
        with self.at(48):
            delete_project(sandbox, owner_id)
        return shapes

    def web_workflow(self, web: Project) -> None:
        """The Web team shapes its board: a QA column (added, renamed, moved next to
        review) and an Icebox they tried and dropped (recategorized, then deleted)."""
        owner_id = self.owner.id
        with self.at(114, -2):
            qa = create_state(web, "QA", StateCategory.STARTED, actor_id=owner_id)
        with self.at(114, -3):
            update_state(web, qa, owner_id, name="Ready for QA")
        review = db.session.scalar(
            select(State).where(State.project_id == web.id, State.name == "In Review")
        )
        with self.at(114, -4):
            update_state(web, qa, owner_id, position=review.position + 1)
        with self.at(113):
            icebox = create_state(web, "Icebox", StateCategory.BACKLOG, actor_id=owner_id)
        with self.at(112):
            update_state(web, icebox, owner_id, category=StateCategory.CANCELLED)
        with self.at(111):
            delete_state(web, icebox, owner_id)

    def late_people(self) -> None:
        """Project roles that change and people who leave a project, after the fact."""
        owner_id = self.owner.id
        for project in self.projects.values():
            members = [
                m
                for m in list_project_members(project.id)
                if m.source == MembershipSource.MANUAL
                and m.role == ProjectRole.MEMBER
                and not m.account.is_agent
            ]
            with self.at(35):
                set_project_member(
                    project, members[0].account_id, ProjectRole.ADMIN, actor_id=owner_id
                )
            with self.at(25):
                remove_project_member(members[1], owner_id)

    def synced_groups(self) -> None:
        """Name the IdP group that gave each synced membership (highest role wins)."""
        mappings = {(g, self.projects[i].id): r for g, i, r in GROUP_MAPPINGS}
        for name, (_, groups) in SSO_GROUPS.items():
            rows = db.session.scalars(
                select(ProjectMember).where(
                    ProjectMember.account_id == self.people[name].id,
                    ProjectMember.source == MembershipSource.SYNCED,
                )
            )
            for row in rows:
                if row.synced_group:
                    continue
                matching = [g for g in groups if (g, row.project_id) in mappings]
                matching.sort(key=lambda g: ProjectRole(mappings[(g, row.project_id)]).rank)
                row.synced_group = matching[-1] if matching else None

    # -- agents, tokens, settings -----------------------------------------------------

    def agents_and_tokens(self) -> None:
        admin = self.people["Priya Raman"].id
        project_ids = [p.id for p in self.projects.values()]
        for i, (name, description) in enumerate(AGENTS):
            with self.at(80 - i, actor_id=admin):
                account, _, _ = create_agent(
                    self.org,
                    name=name,
                    description=description,
                    project_ids=project_ids,
                    actor_id=admin,
                )
            self.agents.append(account)
        with self.at(85, actor_id=admin):
            retired, _, _ = create_agent(
                self.org,
                name=RETIRED_AGENT[0],
                description=RETIRED_AGENT[1],
                project_ids=[self.projects["WEB"].id],
                actor_id=admin,
            )
        with self.at(30):
            remove_agent(get_agent(self.org.id, retired.id), actor_id=admin)
        owner = self.owner
        with self.at(75):
            create_token(owner, self.org, "Laptop CLI")
        with self.at(60):
            old, _ = create_token(owner, self.org, "Old CI pipeline")
        with self.at(10):
            revoke_token(owner.id, self.org.id, old.id)
        with self.at(19):
            save_settings(
                self.org.id,
                base_url="https://trial-llm.demo.invalid/v1",
                model="trial-model",
                api_key="demo-placeholder-not-a-key",
                actor_id=self.owner.id,
            )
        with self.at(18, 1):
            remove_ai_settings(self.org.id, actor_id=self.owner.id)
        with self.at(18):
            save_settings(
                self.org.id,
                base_url="https://llm.demo.invalid/v1",
                model="demo-model",
                api_key="demo-placeholder-not-a-key",
                actor_id=self.owner.id,
            )

    def dashboards(self) -> None:
        owner = self.owner
        made: dict[str, Dashboard] = {}
        for i, (key, (name, pql, widgets)) in enumerate(DASHBOARDS.items()):
            with self.at(28 - i * 3):
                dashboard = create_dashboard(self.org, owner.id, name + " (draft)", pql)
                for widget in widgets:
                    add_widget(dashboard, self.org, owner.id, widget)
            made[key] = dashboard
            with self.at(27 - i * 3):
                update_dashboard(dashboard, self.org, owner.id, name=name)
        shared, private = made["shared"], made["private"]
        with self.at(26):
            set_visibility(shared, owner.id, Visibility.WORKSPACE)
        with self.at(21):
            set_visibility(private, owner.id, Visibility.WORKSPACE)
        with self.at(20):
            set_visibility(private, owner.id, Visibility.PRIVATE)
        with self.at(16):
            spare = add_widget(shared, self.org, owner.id, {"title": "Scratch"})
        with self.at(15):
            update_widget(shared.widgets[0], self.org, owner.id, {"span": 2})
            remove_widget(shared, spare, owner.id)
        with self.at(12):
            ids = [w.id for w in shared.widgets]
            reorder_widgets(shared, owner.id, [ids[0], ids[2], ids[1], *ids[3:]])
        with self.at(9):
            scratch = create_dashboard(self.org, owner.id, "Scratch pad")
        with self.at(8):
            delete_dashboard(scratch, owner.id)

    # -- work on tasks ----------------------------------------------------------------

    def tasks(self, shapes: dict[str, ProjectShape], task_count: int) -> None:
        per_project = [task_count // len(PROJECTS)] * len(PROJECTS)
        per_project[0] += task_count - sum(per_project)
        for (_, identifier), count in zip(PROJECTS, per_project, strict=True):
            project, shape = self.projects[identifier], shapes[identifier]
            workers = list(
                db.session.scalars(
                    select(ProjectMember.account_id).where(
                        ProjectMember.project_id == project.id,
                        ProjectMember.role.in_([ProjectRole.MEMBER, ProjectRole.ADMIN]),
                    )
                )
            )
            task_rows, activity_rows = generate_tasks(self.rng, shape, count, workers, self.now)
            write_rows(task_rows, activity_rows)
            project.next_sequence = shape.next_sequence
        db.session.flush()

    def discussion(self) -> None:
        """Agents move and comment on their tasks; people comment on a few dozen."""
        rng = self.rng
        for agent in self.agents:
            tasks = db.session.scalars(
                select(Task)
                .where(
                    Task.org_id == self.org.id,
                    Task.assignee_id == agent.id,
                    Task.state_category.in_(
                        [
                            StateCategory.TRIAGE,
                            StateCategory.BACKLOG,
                            StateCategory.UNSTARTED,
                            StateCategory.STARTED,
                        ]
                    ),
                )
                .order_by(Task.project_id, Task.sequence)
                .limit(4)
            ).all()
            for task in tasks:
                nxt = _NEXT[task.state_category]
                state = db.session.scalar(
                    select(State.id)
                    .where(State.project_id == task.project_id, State.category == nxt)
                    .order_by(State.position)
                )
                when = self._after(task.updated_at)
                with self.stamp.at(when):
                    text = AGENT_COMMENTS[agent.name].format(kind=task.kind, priority=task.priority)
                    add_comment(task, agent.id, text)
                    update_task(task, agent.id, {"state_id": state}, at=when)
        authors = [a for n, a in self.people.items() if n != LEAVER and self.members[n].active]
        tasks = db.session.scalars(
            select(Task).where(Task.org_id == self.org.id).order_by(Task.project_id, Task.sequence)
        ).all()
        for task in rng.sample(tasks, min(24, len(tasks))):
            when = self._after(task.created_at)
            for body in rng.sample(COMMENTS, rng.randint(1, 3)):
                when = self._after(when)
                with self.stamp.at(when):
                    add_comment(task, rng.choice(authors).id, body)

    def _after(self, start: datetime) -> datetime:
        start = start if start.tzinfo else start.replace(tzinfo=UTC)
        return start + (self.now - start) * self.rng.uniform(0.1, 0.6)

    def sign_ins(self) -> None:
        """Recent password sign-ins, so the audit log's newest page is busy."""
        for name in ("Priya Raman", "Marcus Chen", "Sofia Alvarez", "Chloe Dubois"):
            for days in (6, 3, 1):
                self.login(self.people[name], "password", days)
        for days in (5, 2, 0.2):
            self.login(self.owner, "password", days)
        for name in ("Ben Carter", "Lina Haddou"):
            self.login(self.people[name], "ldap", 2)


_NEXT = {
    StateCategory.TRIAGE: StateCategory.BACKLOG,
    StateCategory.BACKLOG: StateCategory.UNSTARTED,
    StateCategory.UNSTARTED: StateCategory.STARTED,
    StateCategory.STARTED: StateCategory.COMPLETED,
}


def seed_demo(
    task_count: int = 2000, password: str | None = None, seed: int = 7
) -> DemoResult | None:
    """The demo org Acme; None when it exists already. The caller commits."""
    if db.session.scalar(select(Org.id).where(Org.slug == "acme")):
        return None
    password = password or secrets.token_urlsafe(9)
    stamp = _Stamp()
    session = db.session()
    event.listen(session, "transient_to_pending", stamp.collect)
    try:
        demo = _Demo(random.Random(seed), datetime.now(UTC), stamp)
        demo.org_and_people(password)
        demo.domains()
        shapes = demo.projects_and_teams()
        demo.identity()
        demo.mappings()
        demo.directory_people()
        demo.agents_and_tokens()
        demo.tasks(shapes, task_count)
        demo.discussion()
        demo.reorganisation()
        demo.synced_groups()
        demo.late_people()
        demo.dashboards()
        demo.sign_ins()
        db.session.flush()
    finally:
        event.remove(session, "transient_to_pending", stamp.collect)
    return DemoResult(org_id=demo.org.id, owner_email=demo.owner.email, password=password)
