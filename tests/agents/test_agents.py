"""Agents as members: created by admins, acting through the tool interface with
their token, every change attributed to them, counted in analytics like people."""

from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import select

from tests.agents.conftest import make_project, make_task, states_by_name
from tests.conftest import add_person
from tests.factories import bearer, create_agent, login

TOOLS = "/api/v1/agent/tools"


def call(client, agent, tool, **args):
    return client.post(f"{TOOLS}/{tool}", json=args, headers=bearer(agent["token"]))


def ok(resp):
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["result"]


@pytest.fixture
def project(client, acme):
    return make_project(client, acme)


def test_admin_creates_agent_and_token_is_shown_once(client, app, acme, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    assert agent["token"].startswith("ws_") and agent["kind"] == "agent"
    assert agent["token_prefix"] == agent["token"][:10]
    listed = client.get(acme.url("/agents"), headers=acme.headers).get_json()
    assert [a["name"] for a in listed] == ["Triage Bot"]
    assert "token" not in listed[0] and agent["token"] not in str(listed)
    # The agent is an org member (role member) and a member of the project.
    members = client.get(acme.url("/members"), headers=acme.headers).get_json()
    mine = [m for m in members if m["account"]["id"] == agent["id"]]
    assert mine and mine[0]["role"] == "member"
    project_members = client.get(
        acme.url(f"/projects/{project['id']}/members"), headers=acme.headers
    ).get_json()
    assert agent["id"] in str(project_members)
    # Only admins manage agents.
    bob = add_person(app, acme.org_id, "bob@acme.test")
    assert client.get(acme.url("/agents"), headers=bob.headers).status_code == 403
    resp = client.post(acme.url("/agents"), json={"name": "X"}, headers=bob.headers)
    assert resp.status_code == 403
    # Projects must be the org's own.
    resp = client.post(
        acme.url("/agents"),
        json={"name": "Y", "project_ids": ["00000000-0000-0000-0000-000000000000"]},
        headers=acme.headers,
    )
    assert resp.status_code == 422 and resp.get_json()["errors"][0]["field"] == "project_ids"
    # The audit trail says the admin made the agent's token, not the agent.
    events = client.get(acme.url("/events"), headers=acme.headers).get_json()
    made = next(
        e
        for e in events
        if e["kind"] == "api_token.created" and e["data"]["for_account"].endswith("@agents.invalid")
    )
    assert made["actor_id"] == str(acme.owner_id)


def test_tool_interface_needs_an_agent_token(client, acme, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    assert client.get(TOOLS).status_code == 401
    assert client.get(TOOLS, headers=bearer("ws_not-a-real-token")).status_code == 401
    assert client.get(TOOLS, headers=acme.headers).status_code == 403  # a person's token
    resp = client.post(f"{TOOLS}/list_tasks", json={}, headers=acme.headers)
    assert resp.status_code == 403
    tools = client.get(TOOLS, headers=bearer(agent["token"])).get_json()
    names = {t["name"] for t in tools}
    assert names >= {
        "list_tasks",
        "get_task",
        "create_task",
        "set_task_state",
        "assign_task_to_me",
        "comment_on_task",
        "analytics_overview",
        "analytics_workload",
        "analytics_custom_chart",
    }
    create = next(t for t in tools if t["name"] == "create_task")
    assert create["inputSchema"]["type"] == "object"
    assert set(create["inputSchema"]["required"]) == {"project_id", "title"}
    assert create["inputSchema"]["properties"]["kind"]["enum"] == ["task", "bug", "feature", "epic"]


def test_each_tool_acts_as_the_agent(client, app, acme, globex, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    states = states_by_name(client, acme, project["id"])

    created = ok(
        call(
            client, agent, "create_task", project_id=project["id"], title="Flaky login", kind="bug"
        )
    )
    task_id = created["id"]
    seen = client.get(acme.url(f"/tasks/{task_id}"), headers=acme.headers).get_json()
    assert seen["title"] == "Flaky login" and seen["kind"] == "bug"

    assigned = ok(call(client, agent, "assign_task_to_me", task_id=task_id))
    assert assigned["assignee_id"] == agent["id"]
    moved = ok(call(client, agent, "set_task_state", task_id=task_id, state="in progress"))
    assert moved["state_id"] == states["In Progress"] and moved["state_category"] == "started"
    assert moved["state_name"] == "In Progress"
    ok(call(client, agent, "comment_on_task", task_id=task_id, body="Reproduced on Safari."))

    seen = client.get(acme.url(f"/tasks/{task_id}"), headers=acme.headers).get_json()
    assert seen["assignee_id"] == agent["id"] and seen["state_name"] == "In Progress"
    history = client.get(acme.url(f"/tasks/{task_id}/activity"), headers=acme.headers).get_json()
    fields = [(h["field"], h["actor_id"]) for h in history]
    assert fields == [
        ("created", agent["id"]),
        ("assignee_id", agent["id"]),
        ("state", agent["id"]),
        ("comment", agent["id"]),
    ]

    mine = ok(call(client, agent, "list_tasks", assigned_to_me=True))
    assert mine["total"] == 1 and mine["tasks"][0]["id"] == task_id
    detail = ok(call(client, agent, "get_task", task_id=task_id))
    assert detail["comments"][0]["body"] == "Reproduced on Safari."
    assert detail["comments"][0]["author_id"] == agent["id"]

    workload = ok(call(client, agent, "analytics_workload"))
    assert workload == [
        {
            "assignee_id": agent["id"],
            "name": "Triage Bot",
            "email": workload[0]["email"],
            "kind": "agent",
            "open": 1,
            "in_progress": 1,
            "completed_30d": 0,
        }
    ]
    overview = ok(call(client, agent, "analytics_overview"))
    assert overview["total"] == 1 and overview["by_kind"]["bug"] == 1
    chart = ok(call(client, agent, "analytics_custom_chart", metric="open", dimension="assignee"))
    assert chart["points"] == [{"key": "Triage Bot", "value": 1, "id": agent["id"]}]
    # The same figures through the people's API.
    api_workload = client.get(acme.url("/analytics/workload"), headers=acme.headers).get_json()
    assert api_workload[0]["assignee_id"] == agent["id"] and api_workload[0]["kind"] == "agent"

    ok(call(client, agent, "set_task_state", task_id=task_id, state=states["Done"]))
    overview = client.get(acme.url("/analytics/overview"), headers=acme.headers).get_json()
    assert overview["completed"] == 1


def test_tool_refusals(client, app, acme, globex, project):
    agent = create_agent(client, acme)  # member of no project yet
    resp = call(client, agent, "create_task", project_id=project["id"], title="x")
    assert resp.status_code == 403
    resp = call(client, agent, "create_task", project_id=project["id"])
    assert resp.status_code == 400 and resp.get_json()["errors"][0]["field"] == "title"
    resp = call(client, agent, "no_such_tool")
    assert resp.status_code == 404
    other = make_project(client, globex, "G", "G")
    foreign = make_task(client, globex, other["id"])
    assert call(client, agent, "get_task", task_id=foreign["id"]).status_code == 404
    resp = call(client, agent, "create_task", project_id=other["id"], title="x")
    assert resp.status_code == 404
    task = make_task(client, acme, project["id"])
    resp = call(client, agent, "set_task_state", task_id=task["id"], state="Shipped")
    assert resp.status_code == 403  # no project role: refused before the state lookup
    resp = client.post(
        f"{TOOLS}/list_tasks",
        data="{",
        headers={**bearer(agent["token"]), "Content-Type": "application/json"},
    )
    assert resp.status_code == 400
    resp = call(client, agent, "list_tasks", offset=2**63)
    assert resp.status_code == 400 and resp.get_json()["errors"][0]["field"] == "offset"
    # A removed agent's token stops working.
    with app.app_context():
        from workspace.agents import members
        from workspace.extensions import db

        member = members.get_agent(acme.org_id, uuid.UUID(agent["id"]))
        members.remove_agent(member, actor_id=acme.owner_id)
        db.session.commit()
    assert client.get(TOOLS, headers=bearer(agent["token"])).status_code == 401


def test_agent_state_names_are_checked(client, acme, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    task = ok(call(client, agent, "create_task", project_id=project["id"], title="t"))
    resp = call(client, agent, "set_task_state", task_id=task["id"], state="Shipped")
    assert resp.status_code == 400
    assert "Backlog" in resp.get_json()["detail"]


def test_agents_cannot_sign_in_with_a_password(client, acme, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    listed = client.get(acme.url("/members"), headers=acme.headers).get_json()
    email = next(m["account"]["email"] for m in listed if m["account"]["id"] == agent["id"])
    assert email.endswith("@agents.invalid")
    resp = client.post("/signin", data={"email": email, "password": ""})
    assert resp.status_code != 302
    resp = client.post("/signin", data={"email": email, "password": agent["token"]})
    assert resp.status_code != 302
    # Even an agent account that somehow holds a password is refused: the check is
    # on the kind of account, not on the missing password.
    from workspace.auth.passwords import set_password
    from workspace.core.models import Account
    from workspace.extensions import db

    with client.application.app_context():
        set_password(db.session.get(Account, uuid.UUID(agent["id"])), "agent-password-1")
        db.session.commit()
    resp = client.post("/signin", data={"email": email, "password": "agent-password-1"})
    assert resp.status_code == 401 and client.get(f"/o/{acme.slug}/").status_code == 302


def test_agent_work_counts_in_every_rollup_exactly_like_a_person(client, app, acme):
    """End to end: a person and an agent do the same work, one through the people's
    API, the other through the tool interface; every rollup counts them alike."""
    project = make_project(client, acme)
    states = states_by_name(client, acme, project["id"])
    ann = add_person(app, acme.org_id, "ann@acme.test")
    client.post(
        acme.url(f"/projects/{project['id']}/members"),
        json={"account_id": str(ann.owner_id), "role": "member"},
        headers=acme.headers,
    )
    agent = create_agent(client, acme, "Builder Bot", project_ids=[project["id"]])
    plan = [
        ("bug", "urgent", "In Progress"),
        ("feature", "high", "Done"),
        ("task", "low", "Todo"),
        ("bug", "none", "Done"),
        ("task", "none", "Backlog"),
    ]
    for kind, priority, state in plan:
        task = make_task(client, ann, project["id"], title="person", kind=kind, priority=priority)
        client.patch(
            ann.url(f"/tasks/{task['id']}"),
            json={"assignee_id": str(ann.owner_id), "state_id": states[state]},
            headers=ann.headers,
        )
        made = ok(
            call(
                client,
                agent,
                "create_task",
                project_id=project["id"],
                title="agent",
                kind=kind,
                priority=priority,
                assign_to_me=True,
            )
        )
        ok(call(client, agent, "set_task_state", task_id=made["id"], state=state))

    def get(path, **params):
        resp = client.get(acme.url(path), query_string=params, headers=acme.headers)
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    workload = {r["assignee_id"]: r for r in get("/analytics/workload")}
    person, bot = workload[str(ann.owner_id)], workload[agent["id"]]
    assert bot["kind"] == "agent" and person["kind"] == "person"
    for figure in ("open", "in_progress", "completed_30d"):
        assert person[figure] == bot[figure], figure
    assert (bot["open"], bot["in_progress"], bot["completed_30d"]) == (3, 1, 2)

    overview = get("/analytics/overview")
    assert overview["total"] == 10 and overview["completed"] == 4
    assert all(v % 2 == 0 for v in overview["by_kind"].values())

    for metric in ("count", "done", "open"):
        points = {
            p["id"]: p["value"]
            for p in get("/analytics/custom", metric=metric, dimension="assignee")["points"]
        }
        assert points[agent["id"]] == points[str(ann.owner_id)], metric

    pivot = get("/analytics/pivot", row="assignee", col="status")
    cells = {(c["row"], c["col"]): c["count"] for c in pivot["cells"]}
    for status in states:
        assert cells.get((agent["id"], status), 0) == cells.get((str(ann.owner_id), status), 0)

    flow = get("/analytics/flow")
    assert flow["total_wip"] == 6
    by_category = {c["category"]: c["wip"] for c in flow["categories"]}
    assert by_category == {"backlog": 2, "unstarted": 2, "started": 2}

    # Forecast reads the history: move every completion a week back, and last
    # week's count holds the agent's two moves to Done beside Ann's two.
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import func, select, update

    from workspace.core.models import Account, TaskActivity
    from workspace.extensions import db

    with app.app_context():
        done = (TaskActivity.field == "state") & (TaskActivity.new_category == "completed")
        by_kind = db.session.execute(
            select(Account.kind, func.count())
            .join(TaskActivity, TaskActivity.actor_id == Account.id)
            .where(done)
            .group_by(Account.kind)
        ).all()
        db.session.execute(
            update(TaskActivity)
            .where(done)
            .values(created_at=datetime.now(UTC) - timedelta(days=7))
        )
        db.session.commit()
    assert dict(by_kind) == {"person": 2, "agent": 2}
    forecast = get("/analytics/forecast", weeks=2)
    assert forecast["series"][-1]["completed"] == 4

    # Scatter: put every task in one cycle; the agent's done work is completed work.
    cycle = client.post(
        acme.url(f"/projects/{project['id']}/cycles"), json={"name": "Now"}, headers=acme.headers
    ).get_json()
    listed = client.get(
        acme.url(f"/projects/{project['id']}/tasks"),
        query_string={"limit": 100},
        headers=acme.headers,
    ).get_json()["items"]
    for task in listed:
        client.patch(
            acme.url(f"/tasks/{task['id']}"), json={"cycle_id": cycle["id"]}, headers=acme.headers
        )
    scatter = {p["id"]: p for p in get("/analytics/scatter", dimension="cycle")}
    assert (scatter[cycle["id"]]["scope"], scatter[cycle["id"]]["completed"]) == (10, 4)
    agent_view = ok(
        call(client, agent, "analytics_custom_chart", metric="done", dimension="assignee")
    )
    assert {p["key"]: p["value"] for p in agent_view["points"]} == {"Ann": 2, "Builder Bot": 2}
    # The tool takes the custom chart's filters too: one status, one priority, PQL.
    for args, expected in (
        ({"status": "Done"}, {"Ann": 2, "Builder Bot": 2}),
        ({"priority": "high"}, {"Ann": 1, "Builder Bot": 1}),
        ({"filter": "kind = bug AND statusCategory = completed"}, {"Ann": 1, "Builder Bot": 1}),
    ):
        view = ok(call(client, agent, "analytics_custom_chart", dimension="assignee", **args))
        assert {p["key"]: p["value"] for p in view["points"]} == expected, args
    bad = call(client, agent, "analytics_custom_chart", filter="kind = chore")
    assert bad.status_code == 400 and "PQL error" in bad.get_json()["detail"]


def test_agents_cannot_sign_in_through_sso_or_ldap(client, app, acme):
    agent = create_agent(client, acme)
    listed = client.get(acme.url("/members"), headers=acme.headers).get_json()
    email = next(m["account"]["email"] for m in listed if m["account"]["id"] == agent["id"])
    from workspace.auth.login import provision_member
    from workspace.core.models import Org
    from workspace.errors import ForbiddenError
    from workspace.extensions import db

    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        with pytest.raises(ForbiddenError):
            provision_member(org, email, "Agent", via="sso")


def test_an_agent_asking_is_recorded_as_the_agent(client, app, acme):
    make_project(client, acme)
    agent = create_agent(client, acme)
    resp = client.post(
        acme.url("/analytics/ask"), json={"text": "done by project"}, headers=bearer(agent["token"])
    )
    assert resp.status_code == 200
    from workspace.agents.models import AiRun
    from workspace.extensions import db

    with app.app_context():
        run = db.session.get(AiRun, uuid.UUID(resp.get_json()["ai_run_id"]))
        assert (run.actor_kind, str(run.account_id)) == ("agent", agent["id"])


def test_an_agent_acts_only_inside_the_projects_it_was_granted(client, app, acme, project):
    """docs/security.md#agents: an agent's token on the JSON API cannot widen its own
    reach (create a project it would administer, create dashboards, grant roles) until
    an org owner or admin explicitly gives it that right."""
    agent = create_agent(client, acme, project_ids=[project["id"]])
    headers = bearer(agent["token"])
    mia = add_person(app, acme.org_id, "mia@acme.test")
    # Its own project: it works on tasks there, as granted.
    resp = client.post(
        acme.url(f"/projects/{project['id']}/tasks"), json={"title": "x"}, headers=headers
    )
    assert resp.status_code == 201, resp.get_json()
    # Widening its reach is refused, with a message that says who can allow it.
    refused = [
        client.post(
            acme.url("/projects"), json={"name": "Mine", "identifier": "MINE"}, headers=headers
        ),
        client.post(acme.url("/dashboards"), json={"name": "Mine"}, headers=headers),
        client.post(
            acme.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(mia.owner_id), "role": "admin"},
            headers=headers,
        ),
        client.get(acme.url("/agents"), headers=headers),
    ]
    for resp in refused:
        assert resp.status_code == 403, (resp.request.path, resp.get_json())
    assert "org owner or admin" in refused[0].get_json()["detail"]
    # An explicit grant: a project admin makes the agent admin of that project only.
    resp = client.post(
        acme.url(f"/projects/{project['id']}/members"),
        json={"account_id": agent["id"], "role": "admin"},
        headers=acme.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    resp = client.post(
        acme.url(f"/projects/{project['id']}/members"),
        json={"account_id": str(mia.owner_id), "role": "member"},
        headers=headers,
    )
    assert resp.status_code == 201, resp.get_json()
    assert (
        client.post(
            acme.url("/projects"), json={"name": "M", "identifier": "MM"}, headers=headers
        ).status_code
        == 403
    )
    # The org-wide right: an owner makes the agent an org admin.
    with app.app_context():
        from workspace.core.models import OrgMember, OrgRole
        from workspace.extensions import db

        member = db.session.scalar(
            select(OrgMember).where(
                OrgMember.org_id == acme.org_id, OrgMember.account_id == uuid.UUID(agent["id"])
            )
        )
        member.role = OrgRole.ADMIN
        db.session.commit()
    resp = client.post(acme.url("/dashboards"), json={"name": "Mine"}, headers=headers)
    assert resp.status_code == 201, resp.get_json()


def test_list_tasks_of_another_orgs_project_is_a_404(client, acme, globex, project):
    agent = create_agent(client, acme, project_ids=[project["id"]])
    other = make_project(client, globex, "G", "G")
    make_task(client, globex, other["id"])
    resp = call(client, agent, "list_tasks", project_id=other["id"])
    assert resp.status_code == 404, resp.get_json()
    assert ok(call(client, agent, "list_tasks", project_id=project["id"]))["total"] == 0


def test_two_active_agents_cannot_share_a_name(client, acme):
    """Two "QA Bot"s cannot be told apart in the assignee lists or the history."""
    first = create_agent(client, acme, name="QA Bot")
    for same in ("QA Bot", "  qa   bot "):
        again = client.post(acme.url("/agents"), json={"name": same, "project_ids": []},
                            headers=acme.headers)  # fmt: skip
        assert again.status_code == 409, again.get_json()
        assert again.get_json()["errors"][0]["field"] == "name"
        assert "already in this organization" in again.get_json()["detail"]
    # On the page the refusal stands beside the name; a removed agent frees its name.
    login(client, acme.owner_email)
    page = client.post(f"/o/{acme.slug}/settings/agents", data={"name": "QA Bot"})
    assert page.status_code == 400 and "already in this organization" in page.get_data(as_text=True)
    gone = client.post(f"/o/{acme.slug}/settings/agents/{first['id']}/remove")
    assert gone.status_code in (302, 303)
    assert create_agent(client, acme, name="QA Bot")["id"] != first["id"]


def test_tools_take_task_keys_and_project_identifiers(client, acme, globex, project):
    """An agent that reads "WEB-12" in a comment acts on it by that key; the key of
    another org's task, or one naming nothing, is a 404 as an unknown id is."""
    agent = create_agent(client, acme, project_ids=[project["id"]])
    identifier = project["identifier"]
    made = ok(call(client, agent, "create_task", project_id=identifier.lower(), title="By key"))
    assert made["project_id"] == project["id"]
    key = made["key"]
    moved = ok(call(client, agent, "set_task_state", task_id=key.lower(), state="in progress"))
    assert moved["id"] == made["id"] and moved["state_name"] == "In Progress"
    ok(call(client, agent, "comment_on_task", task_id=key, body="Picked up by key."))
    read = ok(call(client, agent, "get_task", task_id=key))
    assert read["task"]["id"] == made["id"]
    assert [c["body"] for c in read["comments"]] == ["Picked up by key."]
    listed = ok(call(client, agent, "list_tasks", project_id=identifier))
    assert made["id"] in [t["id"] for t in listed["tasks"]]
    overview = ok(call(client, agent, "analytics_overview", project_id=identifier))
    assert overview["total"] == listed["total"]

    other = make_project(client, globex, "Globex web", "GWEB")
    foreign = make_task(client, globex, other["id"])
    for tool, args in (
        ("get_task", {"task_id": foreign["key"]}),
        ("get_task", {"task_id": f"{identifier}-99999"}),
        ("get_task", {"task_id": "not a key"}),
        ("list_tasks", {"project_id": "GWEB"}),
        ("create_task", {"project_id": "NOPE", "title": "x"}),
    ):
        resp = call(client, agent, tool, **args)
        assert resp.status_code == 404, (tool, args, resp.get_json())
        assert "No such" in resp.get_json()["detail"]


def test_an_agents_token_is_replaced_and_the_old_one_stops_at_once(client, app, acme, globex):
    """A token that may have leaked is replaced without removing the agent (and with
    it its history's name, its projects and its assignments)."""
    agent = create_agent(client, acme)
    old = agent["token"]
    assert client.get(TOOLS, headers=bearer(old)).status_code == 200
    path = acme.url(f"/agents/{agent['id']}/token")
    bob = add_person(app, acme.org_id, "bob@acme.test")
    assert client.post(path, headers=bob.headers).status_code == 403
    assert (
        client.post(globex.url(f"/agents/{agent['id']}/token"), headers=globex.headers).status_code
        == 404
    )
    resp = client.post(path, headers=acme.headers)
    assert resp.status_code == 201, resp.get_json()
    new = resp.get_json()
    assert new["id"] == agent["id"] and new["token"] != old
    assert new["token_prefix"] == new["token"][:10]
    assert client.get(TOOLS, headers=bearer(old)).status_code == 401
    assert client.get(TOOLS, headers=bearer(new["token"])).status_code == 200
    listed = client.get(acme.url("/agents"), headers=acme.headers).get_json()
    assert [a["token_prefix"] for a in listed] == [new["token_prefix"]]
    events = client.get(acme.url("/events"), headers=acme.headers).get_json()
    revoked = [e for e in events if e["kind"] == "api_token.revoked"]
    assert revoked and revoked[0]["actor_id"] == str(acme.owner_id)
    # A person's account is not an agent: no token of theirs is replaced here.
    resp = client.post(acme.url(f"/agents/{acme.owner_id}/token"), headers=acme.headers)
    assert resp.status_code == 404


def test_the_agents_page_replaces_a_token_and_shows_it_once(client, acme):
    agent = create_agent(client, acme)
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings/agents").get_data(as_text=True)
    assert "Its current token stops working at once" in page  # the confirmation
    resp = client.post(f"/o/{acme.slug}/settings/agents/{agent['id']}/token")
    assert resp.status_code == 303 and resp.location.endswith("#new-agent-token")
    shown = client.get(resp.location).get_data(as_text=True)
    assert "Triage Bot has a new token" in shown
    token = re.search(r'<code id="agent-new-token">(ws_[^<]+)</code>', shown).group(1)
    assert client.get(TOOLS, headers=bearer(agent["token"])).status_code == 401
    assert client.get(TOOLS, headers=bearer(token)).status_code == 200
    again = client.get(resp.location).get_data(as_text=True)
    assert token not in again and "has a new token" not in again
    # From a tab opened before the agent was removed: back to the list, with why.
    client.post(f"/o/{acme.slug}/settings/agents/{agent['id']}/remove")
    stale = client.post(f"/o/{acme.slug}/settings/agents/{agent['id']}/token")
    assert stale.status_code == 303 and stale.location.endswith("/settings/agents")
    assert "That agent was removed meanwhile" in client.get(stale.location).get_data(as_text=True)
