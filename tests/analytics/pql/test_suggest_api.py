"""The PQL box's suggest API (docs/pql.md#autocomplete) by caller: every member, a
viewer and an agent get names from the org's live projects and active members only;
another org's member gets a 404; bad input is a 400 naming the field."""

from __future__ import annotations

import html

import pytest

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    create_project,
    login,
    make_org,
    member_id,
    project_roles,
    setup_project,
)


@pytest.fixture
def world(client, acme, app):
    project, _ = setup_project(client, acme)
    people = project_roles(client, app, acme, project)
    callers = {role: person.headers for role, person in people.items()}
    callers["owner"] = acme.headers
    callers["no project"] = add_person(app, acme.org_id, "plain@acme.test").headers
    callers["agent"] = bearer(create_agent(client, acme, project_ids=[project["id"]])["token"])
    hidden = create_project(client, acme, "Secret Skunkworks", "SKUNK")
    resp = client.post(
        acme.url(f"/projects/{hidden['id']}/states"),
        json={"name": "Classified Review", "category": "started"},
        headers=acme.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    resp = client.patch(
        acme.url(f"/projects/{hidden['id']}"), json={"archived": True}, headers=acme.headers
    )
    assert resp.status_code == 200, resp.get_json()
    outsider = make_org(app, "Globex", "owner@globex.test")
    other, _ = setup_project(client, outsider)
    client.post(
        outsider.url(f"/projects/{other['id']}/states"),
        json={"name": "Globex Only State", "category": "started"},
        headers=outsider.headers,
    )
    return acme, project, callers, outsider


def _labels(client, org, headers, q, **params):
    resp = client.get(org.url("/pql/suggest"), query_string={"q": q, **params}, headers=headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return [s["label"] for s in resp.get_json()["suggestions"]]


def test_every_member_gets_suggestions_and_another_org_a_404(client, world):
    acme, _project, callers, outsider = world
    for caller, headers in callers.items():
        assert "assignee" in _labels(client, acme, headers, "ass"), caller
        states = _labels(client, acme, headers, "status = ")
        assert "Done" in states, caller
        assert "Classified Review" not in states and "Globex Only State" not in states
        projects = _labels(client, acme, headers, "project = ")
        assert "WEB" in projects and "SKUNK" not in projects, caller
        people = _labels(client, acme, headers, "assignee = ")
        assert "owner@globex.test" not in people and acme.owner_email in people, caller
    url = acme.url("/pql/suggest?q=status")
    assert_problem(client.get(url, headers=outsider.headers), 404)
    assert_problem(client.get(url), 401)


def test_hidden_and_foreign_names_never_match_a_prefix(client, world):
    acme, _project, callers, _outsider = world
    for headers in callers.values():
        assert _labels(client, acme, headers, 'status = "Class') == []
        assert _labels(client, acme, headers, 'status = "Globex') == []
        assert _labels(client, acme, headers, "project = SKU") == []
        assert _labels(client, acme, headers, "assignee = globex") == []


def test_values_functions_and_the_replaced_range(client, world):
    acme, project, _callers, _outsider = world
    resp = client.get(
        acme.url("/pql/suggest"),
        query_string={"q": "priority = hi AND kind = bug", "cursor": 13},
        headers=acme.headers,
    )
    body = resp.get_json()
    assert (body["expects"], body["field"], body["start"], body["end"]) == (
        "value",
        "priority",
        11,
        13,
    )
    assert [s["insert"] for s in body["suggestions"]] == ["high "]
    assert "currentUser()" in _labels(client, acme, acme.headers, "assignee = cur")
    assert "today()" in _labels(client, acme, acme.headers, "dueDate < ")
    assert "isOverdue()" in _labels(client, acme, acme.headers, "isO")
    assert _labels(client, acme, acme.headers, "priority = h", cursor=99) == ["high"]  # the end
    narrowed = _labels(client, acme, acme.headers, "status = ", project=project["id"])
    assert "Done" in narrowed
    assert len(_labels(client, acme, acme.headers, "")) <= 20


@pytest.mark.parametrize(
    "params,field",
    [
        ({"q": "x" * 2001}, "q"),
        ({"q": "status", "cursor": -1}, "cursor"),
        ({"q": "status", "cursor": "abc"}, "cursor"),
        ({"q": "status", "project": "not-a-uuid"}, "project"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, acme, params, field):
    resp = client.get(acme.url("/pql/suggest"), query_string=params, headers=acme.headers)
    assert resp.status_code == 400, resp.get_data(as_text=True)
    error = resp.get_json()["errors"][0]
    assert error["field"] == field and error["message"], error


def test_another_orgs_project_is_a_404(client, world):
    acme, _project, _callers, outsider = world
    theirs = client.get(outsider.url("/projects"), headers=outsider.headers).get_json()
    pid = (theirs["items"] if isinstance(theirs, dict) else theirs)[0]["id"]
    resp = client.get(
        acme.url("/pql/suggest"), query_string={"q": "", "project": pid}, headers=acme.headers
    )
    assert_problem(resp, 404)


@pytest.mark.parametrize(
    "pql,hint",
    [
        ("asignee = currentUser()", "Did you mean 'assignee'?"),
        ("priority = hgh", "Did you mean 'high'?"),
        ("isOverdu()", "Did you mean 'isOverdue()'?"),
    ],
)
def test_the_task_list_page_and_api_say_did_you_mean(client, acme, pql, hint):
    project, _ = setup_project(client, acme)
    resp = client.get(
        acme.url(f"/projects/{project['id']}/tasks"),
        query_string={"pql": pql},
        headers=acme.headers,
    )
    assert resp.status_code in (400, 422), resp.get_json()
    assert hint in resp.get_json()["errors"][0]["message"]
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/projects/{project['id']}", query_string={"pql": pql})
    assert page.status_code == 400
    assert hint in html.unescape(page.get_data(as_text=True))


def test_a_deactivated_member_is_not_offered(client, app, acme):
    setup_project(client, acme)
    add_person(app, acme.org_id, "leaver@acme.test")
    assert _labels(client, acme, acme.headers, "assignee = leav") == ["leaver@acme.test"]
    mid = member_id(app, acme.org_id, "leaver@acme.test")
    resp = client.patch(acme.url(f"/members/{mid}"), json={"active": False}, headers=acme.headers)
    assert resp.status_code == 200, resp.get_json()
    assert _labels(client, acme, acme.headers, "assignee = leav") == []
