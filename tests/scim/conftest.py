"""SCIM test helpers: an org with a SCIM token, and a client that speaks SCIM."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import OrgFixture
from tests.factories import verify_domains

USER = "urn:ietf:params:scim:schemas:core:2.0:User"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
SCIM_JSON = "application/scim+json"


#: The domains the ``scim`` fixture's org (acme) has verified: a SCIM token provisions
#: only emails on its org's verified domains (docs/security.md).
ACME_DOMAINS = (
    "acme.test",
    "example.test",
    "corp.test",
    "home.test",
    "okta.local",
    "testuser.com",
    "x.test",
    "agents.test",
)


def new_scim_token(app, org_id: uuid.UUID, domains: tuple[str, ...] | None = None) -> str:
    """The org's SCIM token. ``domains`` are verified for the org first; by default the
    domain of the org's owner."""
    from sqlalchemy import select

    from workspace.core.models import Account, OrgMember, OrgRole
    from workspace.extensions import db
    from workspace.scim.tokens import generate_token

    if domains is None:
        with app.app_context():
            email = db.session.scalar(
                select(Account.email)
                .join(OrgMember)
                .where(OrgMember.org_id == org_id, OrgMember.role == OrgRole.OWNER)
            )
            domains = (email.rsplit("@", 1)[1],)
    verify_domains(app, org_id, *domains)
    with app.app_context():
        raw = generate_token(org_id, None)[1]
        db.session.commit()  # the service flushes; outside a request the caller commits
        return raw


@dataclass
class Scim:
    """A test client pointed at one org's SCIM base, with its bearer token."""

    client: Any
    org: OrgFixture
    token: str

    @property
    def base(self) -> str:
        return f"/scim/v2/orgs/{self.org.org_id}"

    def headers(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}"}

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any):
        headers = {**self.headers(), **kwargs.pop("headers", {})}
        if body is not None:
            kwargs.setdefault("json", body)
            headers.setdefault("Content-Type", SCIM_JSON)
        return self.client.open(self.base + path, method=method, headers=headers, **kwargs)

    def get(self, path: str, **kw):
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path: str, body: Any = None, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path: str, operations: list[dict[str, Any]], **kw):
        return self.request("PATCH", path, {"schemas": [PATCH_OP], "Operations": operations}, **kw)

    def delete(self, path: str, **kw):
        return self.request("DELETE", path, **kw)

    def create(self, user_name: str, **attrs: Any) -> dict[str, Any]:
        resp = self.post("/Users", {"schemas": [USER], "userName": user_name, **attrs})
        assert resp.status_code == 201, resp.get_data(as_text=True)
        return resp.get_json()


def assert_scim_error(resp, status: int, scim_type: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == SCIM_JSON
    body = resp.get_json()
    assert body["schemas"] == [ERROR]
    assert body["status"] == str(status)
    assert body["detail"]
    if scim_type is not None:
        assert body.get("scimType") == scim_type, body
    return body


@pytest.fixture
def scim(app, client, acme) -> Scim:
    return Scim(client, acme, new_scim_token(app, acme.org_id, ACME_DOMAINS))


def member_state(app, org_id: uuid.UUID, email: str) -> tuple[bool, str] | None:
    """(active, role) of the email's membership in the org, or None."""
    from sqlalchemy import select

    from workspace.core.models import Account, OrgMember
    from workspace.extensions import db

    with app.app_context():
        row = db.session.execute(
            select(OrgMember.active, OrgMember.role)
            .join(Account)
            .where(OrgMember.org_id == org_id, Account.email == email)
        ).first()
        return (row[0], row[1]) if row else None


def event_kinds(app, org_id: uuid.UUID, prefix: str = "scim.user") -> list[str]:
    from workspace.core.events import list_events

    with app.app_context():
        return [e.kind for e in reversed(list_events(org_id, kind_prefix=prefix))]


# -- Groups and group sync (docs/scim.md#groups) -----------------------------------------

GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"


def map_group(client, org: OrgFixture, group: str, project_id: str, role: str) -> None:
    """A group mapping (Settings → Group sync) of ``group`` to the project."""
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project_id, "role": role},
    )
    assert resp.status_code == 201, resp.get_json()


def synced(app, email: str) -> dict[str, tuple[str, str, str | None]]:
    """Project id -> (role, source, where the members page says it comes from)."""
    from sqlalchemy import select

    from workspace.core.accounts import find_account
    from workspace.core.models import ProjectMember
    from workspace.extensions import db

    with app.app_context():
        account = find_account(email)
        return {
            str(pm.project_id): (pm.role, pm.source, pm.synced_from)
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == account.id)
            )
        }
