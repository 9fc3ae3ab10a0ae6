"""The org the contract tests call: one object behind every id a path can name."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import OrgFixture
from tests.factories import add_person, create_project, member_id
from workspace.identity.domains import service as domain_service
from workspace.identity.domains.doh import TxtAnswer

#: Each case renders a PDF in Chromium.
PDF_EXPORT = "GET /api/v1/orgs/{org_id}/dashboards/{dashboard_id}/export.pdf"


@dataclass
class World:
    org: OrgFixture
    #: An id for every path parameter, each a real object of ``org``.
    ids: dict[str, str]
    #: Operations ("DELETE /api/v1/...") with objects of their own: each DELETE, so
    #: that the other operations' cases still find theirs, and the PDF export, whose
    #: dashboard the widget cases do not fill (30 widgets take Chromium a while).
    own: dict[str, dict[str, str]]


def _post(client, org: OrgFixture, path: str, body: dict) -> dict:
    resp = client.post(org.url(path), json=body, headers=org.headers)
    assert resp.status_code in (200, 201), (path, resp.get_json())
    return resp.get_json()


def _world(client, app, org: OrgFixture) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Ids for every path parameter, and the operations with objects of their own."""
    project = create_project(client, org)
    other = create_project(client, org, name="Doomed", identifier="DOOM")
    pid = project["id"]
    task = _post(client, org, f"/projects/{pid}/tasks", {"title": "T"})
    doomed_task = _post(client, org, f"/projects/{pid}/tasks", {"title": "Doomed"})
    comment = _post(client, org, f"/tasks/{task['id']}/comments", {"body": "C"})
    doomed_comment = _post(client, org, f"/tasks/{task['id']}/comments", {"body": "D"})
    state = _post(client, org, f"/projects/{pid}/states", {"name": "S", "category": "started"})
    doomed_state = _post(
        client, org, f"/projects/{pid}/states", {"name": "D", "category": "started"}
    )
    cycle = _post(client, org, f"/projects/{pid}/cycles", {"name": "C"})
    module = _post(client, org, f"/projects/{pid}/modules", {"name": "M"})
    dashboard = _post(client, org, "/dashboards", {"name": "D"})
    doomed_dashboard = _post(client, org, "/dashboards", {"name": "Doomed"})
    did = dashboard["id"]
    widget = _post(client, org, f"/dashboards/{did}/widgets", {"title": "W"})
    doomed_widget = _post(client, org, f"/dashboards/{did}/widgets", {"title": "X"})
    printed = _post(client, org, "/dashboards", {"name": "Printed"})
    _post(client, org, f"/dashboards/{printed['id']}/widgets", {"title": "P"})
    person = add_person(app, org.org_id, "member@acme.test")
    project_member = _post(
        client, org, f"/projects/{pid}/members", {"account_id": str(person.owner_id)}
    )
    domain = _post(client, org, "/domains", {"domain": "acme.test"})
    doomed_domain = _post(client, org, "/domains", {"domain": "doomed.test"})
    mapping = _post(
        client,
        org,
        "/sso/group-mappings",
        {"idp_group": "eng", "project_id": pid, "role": "member"},
    )
    view = _post(client, org, f"/projects/{pid}/views", {"name": "V"})
    doomed_view = _post(client, org, f"/projects/{pid}/views", {"name": "Doomed"})
    # A model to test and ask; nothing listens there (loopback is refused at once).
    resp = client.put(
        org.url("/ai-settings"),
        json={"base_url": "https://127.0.0.1/v1", "model": "m", "api_key": "sk-contract"},
        headers=org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    ids = {
        "org_id": str(org.org_id),
        "project_id": pid,
        "task_id": task["id"],
        "comment_id": comment["id"],
        "state_id": state["id"],
        "cycle_id": cycle["id"],
        "module_id": module["id"],
        "dashboard_id": did,
        "widget_id": widget["id"],
        "member_id": str(member_id(app, org.org_id, person.owner_email)),
        "domain_id": domain["id"],
        "mapping_id": mapping["id"],
        "view_id": view["id"],
    }
    base = "DELETE /api/v1/orgs/{org_id}"
    own = {
        f"{base}/projects/{{project_id}}": {"project_id": other["id"]},
        f"{base}/tasks/{{task_id}}": {"task_id": doomed_task["id"]},
        f"{base}/tasks/{{task_id}}/comments/{{comment_id}}": {"comment_id": doomed_comment["id"]},
        f"{base}/projects/{{project_id}}/states/{{state_id}}": {"state_id": doomed_state["id"]},
        f"{base}/projects/{{project_id}}/members/{{member_id}}": {
            "member_id": project_member["id"]
        },
        f"{base}/dashboards/{{dashboard_id}}": {"dashboard_id": doomed_dashboard["id"]},
        f"{base}/dashboards/{{dashboard_id}}/widgets/{{widget_id}}": {
            "widget_id": doomed_widget["id"]
        },
        f"{base}/domains/{{domain_id}}": {"domain_id": doomed_domain["id"]},
        f"{base}/projects/{{project_id}}/views/{{view_id}}": {"view_id": doomed_view["id"]},
        PDF_EXPORT: {"dashboard_id": printed["id"]},
    }
    return ids, own


@pytest.fixture
def world(app, client, acme: OrgFixture, monkeypatch) -> World:
    # No DNS in tests: every name exists and has no TXT record (not verified yet).
    monkeypatch.setattr(domain_service, "lookup_txt", lambda name: TxtAnswer(records=[]))
    ids, own = _world(client, app, acme)
    return World(acme, ids, own)


@pytest.fixture
def contract_org(world: World) -> tuple[OrgFixture, dict[str, str]]:
    """The org and an id for every path parameter."""
    return world.org, world.ids
