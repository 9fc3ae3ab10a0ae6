"""Shared test factories: orgs, people, sign-in, projects and tasks.

Test modules import these from here, never from each other; ``tests/conftest.py``
re-exports the org helpers and builds its fixtures on them.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from flask import Flask

from workspace.extensions import db

PASSWORD = "correct horse battery"
PROBLEM = "application/problem+json"


@dataclass
class OrgFixture:
    org_id: uuid.UUID
    slug: str
    owner_id: uuid.UUID
    owner_email: str
    password: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def url(self, path: str = "") -> str:
        return f"/api/v1/orgs/{self.org_id}{path}"


def make_org(app: Flask, name: str, owner_email: str) -> OrgFixture:
    """An org with an owner who has a password and an API token."""
    with app.app_context():
        return _make_org(name, owner_email)


def _make_org(name: str, owner_email: str) -> OrgFixture:
    from workspace.auth.api_tokens import create_token
    from workspace.auth.passwords import set_password
    from workspace.core.accounts import ensure_account
    from workspace.core.orgs import create_org

    owner = ensure_account(owner_email, name + " Owner", email_verified=True)
    set_password(owner, PASSWORD)
    org = create_org(name, owner)
    db.session.commit()
    _, raw = create_token(owner, org, "tests")
    db.session.commit()
    return OrgFixture(org.id, org.slug, owner.id, owner.email, PASSWORD, raw)


def add_person(app: Flask, org_id: uuid.UUID, email: str, role: str = "member") -> OrgFixture:
    """Another member of an org, with their own token."""
    with app.app_context():
        return _add_person(org_id, email, role)


def _add_person(org_id: uuid.UUID, email: str, role: str) -> OrgFixture:
    from workspace.auth.api_tokens import create_token
    from workspace.auth.passwords import set_password
    from workspace.core.accounts import add_member, ensure_account
    from workspace.core.models import Org

    org = db.session.get(Org, org_id)
    account = ensure_account(email, email.split("@")[0].title(), email_verified=True)
    set_password(account, PASSWORD)
    add_member(org, account, role)
    db.session.commit()
    _, raw = create_token(account, org, "tests")
    db.session.commit()
    return OrgFixture(org.id, org.slug, account.id, account.email, PASSWORD, raw)


def member_id(app: Flask, org_id: uuid.UUID, email: str) -> uuid.UUID | None:
    """The id of the email's membership in the org (its SCIM id too), or None."""
    from sqlalchemy import select

    from workspace.core.models import Account, OrgMember

    with app.app_context():
        return db.session.scalar(
            select(OrgMember.id)
            .join(Account, Account.id == OrgMember.account_id)
            .where(OrgMember.org_id == org_id, Account.email == email)
        )


def login(client, email: str, password: str = PASSWORD) -> None:
    """Sign a test client in through the real sign-in form."""
    resp = client.post("/signin", data={"email": email, "password": password})
    assert resp.status_code == 302, resp.get_data(as_text=True)


def create_project(client, org: OrgFixture, name: str = "Web App", identifier: str = "WEB") -> dict:
    """A project made through the JSON API as the org's token holder."""
    resp = client.post(
        org.url("/projects"), json={"name": name, "identifier": identifier}, headers=org.headers
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def project_states(client, org: OrgFixture, project_id: str) -> dict[str, dict]:
    """The project's workflow states by name."""
    resp = client.get(org.url(f"/projects/{project_id}/states"), headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return {s["name"]: s for s in resp.get_json()}


def setup_project(client, org: OrgFixture) -> tuple[dict, dict[str, dict]]:
    """A fresh project and its states by name."""
    project = create_project(client, org)
    return project, project_states(client, org, project["id"])


def state_in(states: dict[str, dict], category: str) -> str:
    """The id of a state of ``category`` among a project's states by name."""
    return next(s["id"] for s in states.values() if s["category"] == category)


def rollups_consistent(app: Flask) -> bool:
    """Whether every maintained rollup equals a scan of what it counts."""
    from workspace.analytics import consistency

    with app.app_context():
        result = consistency.verify()
        db.session.commit()
        return result.ok


def new_task(client, org: OrgFixture, project: dict, **fields: Any) -> dict:
    """A task in ``project`` made through the JSON API."""
    resp = client.post(
        org.url(f"/projects/{project['id']}/tasks"),
        json={"title": "Fix login", **fields},
        headers=org.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def assert_problem(resp, status: int, field: str | None = None) -> None:
    """The response is an RFC 9457 problem with ``status`` (and an error on ``field``)."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == PROBLEM
    body = resp.get_json()
    assert body["status"] == status and body["title"] and body["detail"]
    if field:
        assert field in [e["field"] for e in body.get("errors", [])], body


def get_json(client, org: OrgFixture, path: str, **params: Any) -> Any:
    """GET an org API path with the org's token; asserts 200 and returns the JSON."""
    resp = client.get(org.url(path), query_string=params, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def app_beside(app: Flask, **config: Any) -> Flask:
    """A second app on the same database, with the same secrets, and ``config`` on top
    (a test that needs a setting the shared test app does not have)."""
    from workspace import create_app

    keys = ("SQLALCHEMY_DATABASE_URI", "SECRET_KEY", "ENCRYPTION_KEY")
    return create_app({**{k: app.config[k] for k in keys}, "TESTING": True, **config})


def rate_limited_app(app: Flask, **extra: Any) -> Flask:
    """A second app on the same database with rate limits on (the shared test app runs
    with them off). Callers reset ``limiter`` and turn it off again when done."""
    limits = {
        "WTF_CSRF_ENABLED": False,
        "RATELIMIT_ENABLED": True,
        "RATELIMIT_STORAGE_URI": "memory://",
        "PASSWORD_HASH_METHOD": app.config.get("PASSWORD_HASH_METHOD", "scrypt:1024:8:1"),
    }
    return app_beside(app, **{**limits, **extra})


def store_ldap(app: Flask, org_id: uuid.UUID) -> None:
    """An LDAP connection for the org, stored but never contacted (enforced sign-in
    sends people to it without reaching the directory)."""
    from workspace.identity.ldap.models import LdapConnection

    with app.app_context():
        db.session.add(
            LdapConnection(
                org_id=org_id,
                server_uri="ldap://127.0.0.1:1",
                bind_dn="cn=reader,dc=acme,dc=test",
                search_base="ou=people,dc=acme,dc=test",
                search_filter="(uid={username})",
            )
        )
        db.session.commit()


def verify_domains(app: Flask, org_id: uuid.UUID, *domains: str) -> None:
    """Mark domains verified for an org directly (the DoH flow has its own tests)."""
    from workspace.core.models.domains import DomainState, VerifiedDomain
    from workspace.types import utcnow

    with app.app_context():
        for domain in domains:
            db.session.add(
                VerifiedDomain(
                    org_id=org_id,
                    domain=domain,
                    state=DomainState.VERIFIED,
                    verification_token=uuid.uuid4().hex,
                    verified_at=utcnow(),
                )
            )
        db.session.commit()


def browser_sign_in(page, base: str, email: str, password: str = PASSWORD) -> None:
    """Sign a browser page in through the real sign-in form and wait for the app to
    show the signed-in page it lands on (an org home, or the page asked for)."""
    from playwright.sync_api import expect

    page.goto(f"{base}/signin")
    page.get_by_label("Email", exact=True).fill(email)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).not_to_have_url(re.compile(r"/signin"))
    # The landing page's deferred scripts have loaded: a test's next goto would
    # otherwise abort them, and a test watching failed requests would count that.
    page.wait_for_load_state("load")


def new_dashboard(client, who: OrgFixture, **body) -> dict:
    body.setdefault("name", "Team")
    resp = client.post(who.url("/dashboards"), json=body, headers=who.headers)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def add_widget(client, who: OrgFixture, dashboard_id: str, **body) -> dict:
    resp = client.post(
        who.url(f"/dashboards/{dashboard_id}/widgets"), json=body, headers=who.headers
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def create_agent(client, org: OrgFixture, name: str = "Triage Bot", project_ids=()) -> dict:
    """An agent made by the org's owner through the API; the answer holds its token."""
    resp = client.post(
        org.url("/agents"),
        json={"name": name, "description": "Sorts incoming bugs", "project_ids": list(project_ids)},
        headers=org.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def project_roles(client, app: Flask, org: OrgFixture, project: dict) -> dict[str, OrgFixture]:
    """A plain org member given each project role (member, viewer) in ``project``,
    as ``{role: person}``, through the project members API."""
    people = {}
    for role in ("member", "viewer"):
        person = add_person(app, org.org_id, f"{role}@{org.slug}.test")
        resp = client.post(
            org.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(person.owner_id), "role": role},
            headers=org.headers,
        )
        assert resp.status_code == 201, resp.get_json()
        people[role] = person
    return people


def lose_a_deadlock() -> None:
    """Fail the current transaction as PostgreSQL fails a deadlock's loser (failure
    injection): on PostgreSQL the server itself raises SQLSTATE 40P01 (and aborts the
    transaction); SQLite, with one writer, never deadlocks, so the same error is
    raised here."""
    import psycopg
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(
            text("DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$")
        )
    raise OperationalError("UPDATE ...", {}, psycopg.errors.DeadlockDetected())
