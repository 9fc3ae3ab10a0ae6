"""The core JSON API: projects, members and workflow, with every failure kind."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import add_person, assert_problem, create_project


def test_read_org_and_members(client, acme):
    resp = client.get(acme.url(), headers=acme.headers)
    assert resp.status_code == 200
    assert resp.get_json()["slug"] == "acme"
    members = client.get(acme.url("/members"), headers=acme.headers).get_json()
    assert [m["account"]["email"] for m in members] == ["owner@acme.test"]
    assert members[0]["role"] == "owner"


def test_project_crud(client, acme):
    project = create_project(client, acme)
    assert project["identifier"] == "WEB" and project["archived_at"] is None
    url = acme.url(f"/projects/{project['id']}")
    assert client.get(url, headers=acme.headers).get_json()["name"] == "Web App"

    resp = client.patch(url, json={"name": "Website", "archived": True}, headers=acme.headers)
    assert resp.status_code == 200
    assert resp.get_json()["name"] == "Website" and resp.get_json()["archived_at"]
    listed = client.get(acme.url("/projects"), headers=acme.headers).get_json()
    assert listed == [], "archived projects leave the default list"
    everything = client.get(acme.url("/projects?include_archived=true"), headers=acme.headers)
    assert [p["name"] for p in everything.get_json()] == ["Website"]

    assert client.delete(url, headers=acme.headers).status_code == 204
    assert_problem(client.get(url, headers=acme.headers), 404)


def test_new_project_has_every_category_and_creator_as_admin(client, acme):
    project = create_project(client, acme)
    states = client.get(
        acme.url(f"/projects/{project['id']}/states"), headers=acme.headers
    ).get_json()
    assert {s["category"] for s in states} == {
        "backlog",
        "unstarted",
        "started",
        "completed",
        "cancelled",
        "triage",
    }
    members = client.get(
        acme.url(f"/projects/{project['id']}/members"), headers=acme.headers
    ).get_json()
    assert [(m["account"]["email"], m["role"], m["source"]) for m in members] == [
        ("owner@acme.test", "admin", "manual")
    ]


def test_duplicate_identifier_is_409(client, acme):
    create_project(client, acme)
    resp = client.post(
        acme.url("/projects"), json={"name": "Other", "identifier": "WEB"}, headers=acme.headers
    )
    assert_problem(resp, 409, field="identifier")


def test_a_derived_identifier_is_numbered_past_the_ones_in_use(client, acme):
    """A second "Alpha Launch" (or any name without Latin letters) with the identifier
    left empty was refused for an identifier the person never typed."""

    def derived(name: str) -> str:
        resp = client.post(acme.url("/projects"), json={"name": name}, headers=acme.headers)
        assert resp.status_code == 201, resp.get_json()
        return resp.get_json()["identifier"]

    assert [derived("Alpha Launch") for _ in range(3)] == ["ALPH", "ALPH2", "ALPH3"]
    assert [derived(n) for n in ("日本語プロジェクト", "!!!", "3D Lab")] == ["PRJ", "PRJ2", "P3DL"]


@pytest.mark.parametrize(
    "payload, status, field",
    [
        ({}, 400, "name"),
        ({"name": ""}, 400, "name"),
        ({"name": 42}, 400, "name"),
        ({"name": "x" * 201}, 400, "name"),
        # The document takes any text; the service refuses this one (422).
        ({"name": "Ok", "identifier": "lower case!"}, 422, "identifier"),
        ({"name": "Ok", "surprise": 1}, 400, "surprise"),
    ],
)
def test_project_create_validation(client, acme, payload, status, field):
    resp = client.post(acme.url("/projects"), json=payload, headers=acme.headers)
    assert_problem(resp, status, field=field)


def test_malformed_and_non_object_json(client, acme):
    resp = client.post(
        acme.url("/projects"),
        data="{not json",
        headers=acme.headers,
        content_type="application/json",
    )
    assert_problem(resp, 400)
    assert "not valid JSON" in resp.get_json()["detail"]
    resp = client.post(acme.url("/projects"), json=["a"], headers=acme.headers)
    assert_problem(resp, 400)
    # null is JSON, just not an object: say that, not "not valid JSON".
    resp = client.post(acme.url("/projects"), data=" null ", headers=acme.headers,
                       content_type="application/json")  # fmt: skip
    assert_problem(resp, 400)
    assert resp.get_json()["detail"] == "The request body must be a JSON object, not null."
    resp = client.post(
        acme.url("/projects"),
        data="name=x",
        headers=acme.headers,
        content_type="application/x-www-form-urlencoded",
    )
    assert_problem(resp, 415)


def test_oversized_body_is_413(client, acme):
    resp = client.post(
        acme.url("/projects"),
        data="x" * (1024 * 1024 + 10),
        headers=acme.headers,
        content_type="application/json",
    )
    assert_problem(resp, 413)


def test_missing_and_bad_tokens_are_401(client, acme):
    assert_problem(client.get(acme.url("/projects")), 401)
    resp = client.get(acme.url("/projects"), headers={"Authorization": "Bearer ws_nope"})
    assert_problem(resp, 401)
    assert "WWW-Authenticate" in resp.headers
    resp = client.get(acme.url("/projects"), headers={"Authorization": "Basic abc"})
    assert_problem(resp, 401)


def test_unknown_ids_are_404(client, acme):
    missing = uuid.uuid4()
    assert_problem(client.get(acme.url(f"/projects/{missing}"), headers=acme.headers), 404)
    assert_problem(client.get(acme.url(f"/tasks/{missing}"), headers=acme.headers), 404)
    assert_problem(client.get(f"/api/v1/orgs/{missing}/projects", headers=acme.headers), 404)
    assert_problem(client.get(acme.url("/projects/not-a-uuid"), headers=acme.headers), 404)


def test_member_cannot_manage_workflow_but_can_create_projects(client, acme):
    project = create_project(client, acme)
    member = add_person(client.application, acme.org_id, "mia@acme.test")
    resp = client.post(
        acme.url(f"/projects/{project['id']}/states"),
        json={"name": "QA", "category": "started"},
        headers=member.headers,
    )
    assert_problem(resp, 403)
    resp = client.patch(
        acme.url(f"/projects/{project['id']}"), json={"name": "Mine"}, headers=member.headers
    )
    assert_problem(resp, 403)
    assert (
        client.post(acme.url("/projects"), json={"name": "Own"}, headers=member.headers).status_code
        == 201
    )


def test_workflow_create(client, acme):
    project = create_project(client, acme)
    base = acme.url(f"/projects/{project['id']}")
    resp = client.post(
        base + "/states",
        json={"name": "QA", "category": "started", "color": "#123456"},
        headers=acme.headers,
    )
    assert resp.status_code == 201 and resp.get_json()["position"] == 7
    assert_problem(
        client.post(
            base + "/states", json={"name": "qa", "category": "started"}, headers=acme.headers
        ),
        409,
        field="name",
    )
    assert_problem(
        client.post(
            base + "/states", json={"name": "X", "category": "weird"}, headers=acme.headers
        ),
        400,
        field="category",
    )
    resp = client.post(
        base + "/cycles",
        json={"name": "Sprint 1", "start_date": "2026-01-05", "end_date": "2026-01-18"},
        headers=acme.headers,
    )
    assert resp.status_code == 201
    assert_problem(
        client.post(
            base + "/cycles",
            json={"name": "Bad", "start_date": "2026-02-05", "end_date": "2026-01-18"},
            headers=acme.headers,
        ),
        422,
        field="end_date",
    )
    assert_problem(
        client.post(
            base + "/cycles", json={"name": "X", "start_date": "soon"}, headers=acme.headers
        ),
        400,
        field="start_date",
    )
    assert (
        client.post(base + "/modules", json={"name": "Auth"}, headers=acme.headers).status_code
        == 201
    )
    assert [c["name"] for c in client.get(base + "/cycles", headers=acme.headers).get_json()] == [
        "Sprint 1"
    ]
    assert [m["name"] for m in client.get(base + "/modules", headers=acme.headers).get_json()] == [
        "Auth"
    ]


def test_project_members(client, acme, globex):
    project = create_project(client, acme)
    mia = add_person(client.application, acme.org_id, "mia@acme.test")
    base = acme.url(f"/projects/{project['id']}/members")
    resp = client.post(
        base, json={"account_id": str(mia.owner_id), "role": "commenter"}, headers=acme.headers
    )
    assert resp.status_code == 201
    assert resp.get_json()["role"] == "commenter" and resp.get_json()["source"] == "manual"
    # someone from another org cannot be added
    resp = client.post(base, json={"account_id": str(globex.owner_id)}, headers=acme.headers)
    assert_problem(resp, 422, field="account_id")
    assert_problem(
        client.post(
            base, json={"account_id": str(mia.owner_id), "role": "boss"}, headers=acme.headers
        ),
        400,
        field="role",
    )
    member_id = resp_id = client.get(base, headers=acme.headers).get_json()
    member_id = next(m["id"] for m in resp_id if m["account"]["email"] == "mia@acme.test")
    assert client.delete(f"{base}/{member_id}", headers=acme.headers).status_code == 204
    assert_problem(client.delete(f"{base}/{member_id}", headers=acme.headers), 404)


def test_events_need_admin(client, acme):
    create_project(client, acme)
    events = client.get(acme.url("/events"), headers=acme.headers).get_json()
    assert "project.created" in [e["kind"] for e in events]
    member = add_person(client.application, acme.org_id, "mia@acme.test")
    assert_problem(client.get(acme.url("/events"), headers=member.headers), 403)
