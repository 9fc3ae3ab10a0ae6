"""The demo's people: the owner, forty colleagues (who join by hand, by password,
through SCIM, SSO or LDAP), the org's domain, and their recent sign-ins."""

from __future__ import annotations

from workspace.auth.passwords import set_password
from workspace.core.accounts import add_member, ensure_account
from workspace.core.events import record_event
from workspace.core.models import OrgRole
from workspace.core.models.domains import DomainState
from workspace.core.orgs import create_org, update_org
from workspace.extensions import db
from workspace.identity.domains.service import add_domain, remove_domain
from workspace.seed.demo import Demo

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


def email_of(name: str) -> str:
    return name.lower().replace(" ", ".") + "@" + DEMO_DOMAIN


def org_and_people(demo: Demo, password: str) -> None:
    with demo.at(120):
        owner = ensure_account(OWNER_EMAIL, OWNER_NAME, email_verified=True)
        set_password(owner, password)
        demo.org = create_org("Acme", owner, "acme")
    demo.owner = owner
    with demo.at(119):
        update_org(demo.org, owner.id, name="Acme", timezone="Europe/Berlin")
    admins = [name for name, role, _ in PEOPLE if role == OrgRole.ADMIN]
    for index, (name, role, via) in enumerate(PEOPLE):
        if via not in ("manual", "password"):
            continue  # they arrive through SCIM, SSO or LDAP (identity.py)
        account = ensure_account(email_of(name), name, email_verified=True)
        if via == "password":
            # The demo password, hashed once (scrypt takes a third of a second).
            account.password_hash = owner.password_hash
            actor = account.id  # signed up on their own, on the org's domain
        else:
            actor = owner.id if name in admins else demo.people[admins[index % 2]].id
        with demo.at(118 - index * 1.5):
            demo.members[name] = add_member(demo.org, account, role, actor_id=actor, via=via)
        demo.people[name] = account


def domains(demo: Demo) -> None:
    owner_id = demo.owner.id
    with demo.at(112):
        domain = add_domain(demo.org.id, DEMO_DOMAIN, actor_id=owner_id)
    with demo.at(112, -1):
        # verify_domain looks the TXT record up over DNS, which a demo domain does
        # not have; this is the failed first check and then the verification it
        # records, written the way the service writes them.
        record_event(
            demo.org.id,
            "domain.verify_failed",
            actor_id=owner_id,
            subject=DEMO_DOMAIN,
            records_seen=0,
            nxdomain=False,
        )
    with demo.at(111):
        domain.state = DomainState.VERIFIED
        domain.verified_at = demo.ago(111)
        record_event(demo.org.id, "domain.verified", actor_id=owner_id, subject=DEMO_DOMAIN)
        db.session.flush()
    with demo.at(110):
        old = add_domain(demo.org.id, "acme-legacy.test", actor_id=owner_id)
    with demo.at(109):
        remove_domain(demo.org.id, old.id, actor_id=owner_id)


def sign_ins(demo: Demo) -> None:
    """Recent password sign-ins, so the audit log's newest page is busy."""
    for name in ("Priya Raman", "Marcus Chen", "Sofia Alvarez", "Chloe Dubois"):
        for days in (6, 3, 1):
            demo.login(demo.people[name], "password", days)
    for days in (5, 2, 0.2):
        demo.login(demo.owner, "password", days)
    for name in ("Ben Carter", "Lina Haddou"):
        demo.login(demo.people[name], "ldap", 2)
