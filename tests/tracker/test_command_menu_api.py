"""The command menu's endpoint lists only what the caller may open: a member, a project
viewer, an agent and another org's member each get their own answer (docs/command_menu.md)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.factories import (
    OrgFixture,
    add_person,
    assert_problem,
    bearer,
    create_agent,
    create_project,
    login,
    make_org,
    new_dashboard,
    new_task,
)

MENU = "/command-menu"


@dataclass
class Site:
    acme: OrgFixture
    member: OrgFixture
    viewer: OrgFixture
    globex: OrgFixture
    web: dict
    ops: dict
    agent_token: str


@pytest.fixture
def site(app, client) -> Site:
    """Acme: WEB (a member and a viewer, two tasks) and OPS, archived, with a task
    of its own; Globex, another org, whose WEB-1 is its own."""
    acme = make_org(app, "Acme", "owner@acme.test")
    member = add_person(app, acme.org_id, "mem@acme.test")
    viewer = add_person(app, acme.org_id, "view@acme.test")
    web = create_project(client, acme)
    ops = create_project(client, acme, "Operations", "OPS")
    for person, role in ((member, "member"), (viewer, "viewer")):
        resp = client.post(
            acme.url(f"/projects/{web['id']}/members"),
            json={"account_id": str(person.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code in (200, 201), resp.get_json()
    new_task(client, acme, web, title="Fix login flow")
    new_task(client, acme, web, title="Write docs")
    new_task(client, acme, ops, title="Rotate login secrets")
    archived = client.patch(
        acme.url(f"/projects/{ops['id']}"), json={"archived": True}, headers=acme.headers
    )
    assert archived.status_code == 200, archived.get_json()
    new_dashboard(client, acme, name="Owner's private board")
    globex = make_org(app, "Globex", "owner@globex.test")
    new_task(client, globex, create_project(client, globex), title="Globex login page")
    agent = create_agent(client, acme, project_ids=[web["id"]])
    return Site(acme, member, viewer, globex, web, ops, agent["token"])


def find(
    client, who: OrgFixture, token: str | None = None, org: OrgFixture | None = None, **params
):
    org = org or who
    resp = client.get(org.url(MENU), query_string=params, headers=bearer(token or who.token))
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["items"]


def titles(items) -> list[str]:
    return [i["title"] for i in items]


def test_member_finds_tasks_by_key_and_words_only_in_live_projects_of_their_org(client, site):
    items = find(client, site.member, q="web-2")
    assert items[0] == {
        "kind": "task",
        "ref": "task:WEB-2",
        "title": "WEB-2 Write docs",
        "detail": "Web App · Backlog",
        "url": f"/o/{site.acme.slug}/tasks/WEB-2",
    }

    found = titles(find(client, site.member, q="login"))
    assert "WEB-1 Fix login flow" in found
    # Words in any order, through the org's full-text search.
    assert "WEB-1 Fix login flow" in titles(find(client, site.member, q="flow fix"))
    # The archived project's task and Globex's task never show, by words or by key.
    assert not [t for t in found if "secrets" in t or "Globex" in t]
    assert [i for i in find(client, site.member, q="OPS-1") if i["kind"] == "task"] == []
    assert titles(find(client, site.member, q="operations")) == []
    globex_found = titles(find(client, site.globex, q="WEB-1"))
    assert globex_found[0] == "WEB-1 Globex login page"


def test_more_tasks_than_the_menu_shows_lead_to_the_search_page(client, site):
    """Eight tasks and no more are listed; past that, the last item opens the search
    page for every match (the menu was a dead end at eight)."""
    few = find(client, site.member, q="login")
    assert not [i for i in few if i["title"].startswith("All tasks matching")]
    for n in range(9):
        new_task(client, site.acme, site.web, title=f"Export CSV {n}")
    items = find(client, site.member, q="CSV")
    assert len([i for i in items if i["kind"] == "task"]) == 8
    assert items[-1] == {
        "kind": "page",
        "ref": "search:CSV",
        "title": "All tasks matching “CSV”",
        "detail": "Search",
        "url": f"/o/{site.acme.slug}/search?q=CSV",
    }
    login(client, site.member.owner_email)
    page = client.get(items[-1]["url"])
    assert page.status_code == 200 and page.get_data(as_text=True).count("Export") >= 9, (
        page.get_data(as_text=True)[-3000:]
    )


def test_pages_follow_the_role_and_people_open_what_exists(client, site):
    owner_pages = [i["title"] for i in find(client, site.acme, q="settings") if i["kind"] == "page"]
    assert {
        "Settings: General",
        "Settings: Members",
        "Settings: Audit log",
        "Settings: SCIM",
    } <= set(owner_pages)
    member_pages = titles(find(client, site.member, q="settings"))
    assert member_pages == []
    assert "API tokens" in titles(find(client, site.member, q="token"))

    owner_sees = [i for i in find(client, site.acme, q="mem") if i["kind"] == "person"]
    assert owner_sees[0]["url"].startswith(f"/o/{site.acme.slug}/settings/members#member-")
    member_sees = [i for i in find(client, site.member, q="view") if i["kind"] == "person"]
    assert member_sees[0]["title"] == "View"
    assert "pql=assignee" in member_sees[0]["url"]

    # A private dashboard is its owner's alone.
    assert titles(find(client, site.acme, q="private board")) == ["Owner's private board"]
    assert titles(find(client, site.member, q="private board")) == []


def test_create_task_is_offered_only_where_the_role_allows_it(client, site):
    def targets(who: OrgFixture, token: str | None = None):
        resp = client.get(who.url(MENU + "/create-targets"), headers=bearer(token or who.token))
        assert resp.status_code == 200, resp.get_json()
        return [(p["identifier"], p["create_url"]) for p in resp.get_json()]

    web_create = f"/o/{site.acme.slug}/projects/{site.web['id']}/tasks"
    assert targets(site.acme) == [("WEB", web_create)]  # OPS is archived
    assert targets(site.member) == [("WEB", web_create)]
    assert targets(site.viewer) == []
    assert "Create task" in titles(find(client, site.member))
    assert "Create task" not in titles(find(client, site.viewer))
    assert "Create task" not in titles(find(client, site.viewer, q="create task"))
    # The viewer still reads and finds the project's tasks.
    assert titles(find(client, site.viewer, q="WEB-1"))[0] == "WEB-1 Fix login flow"


def test_an_agent_token_finds_tasks_but_no_settings(client, site):
    token = site.agent_token
    assert titles(find(client, site.member, token=token, q="WEB-1"))[0] == "WEB-1 Fix login flow"
    assert [
        i for i in find(client, site.member, token=token, q="settings") if i["kind"] == "page"
    ] == []
    resp = client.get(site.acme.url(MENU + "/create-targets"), headers=bearer(token))
    assert [p["identifier"] for p in resp.get_json()] == ["WEB"]


def test_another_org_and_the_anonymous_get_nothing(client, site):
    for path in (MENU, MENU + "/create-targets"):
        resp = client.get(
            site.acme.url(path), query_string={"q": "WEB-1"}, headers=site.globex.headers
        )
        assert_problem(resp, 404)
        assert_problem(client.get(site.acme.url(path)), 401)


def test_recent_items_come_first_checked_again_and_the_session_cookie_works(client, site):
    login(client, site.member.owner_email)
    recent = ",".join(
        [
            "task:WEB-2",
            f"project:{site.web['id']}",
            "page:admin_pages.settings",  # an admin page: dropped for a member
            f"project:{site.ops['id']}",  # archived since: dropped
            "task:OPS-1",
            "nonsense",
            "task:../../etc",
        ]
    )
    resp = client.get(site.acme.url(MENU), query_string={"recent": recent})
    assert resp.status_code == 200, resp.get_json()
    assert [i["ref"] for i in resp.get_json()["items"]] == [
        "task:WEB-2",
        f"project:{site.web['id']}",
        "action:create-task",
    ]
    # Typing keeps a recent match ahead of the others of its kind.
    resp = client.get(site.acme.url(MENU), query_string={"q": "w", "recent": "task:WEB-2"})
    refs = [i["ref"] for i in resp.get_json()["items"]]
    assert refs.index("task:WEB-2") < refs.index(f"project:{site.web['id']}")


def test_bad_input_is_a_4xx_or_nothing_found_never_a_500(client, site):
    h = site.member.headers
    assert_problem(
        client.get(site.acme.url(MENU), query_string={"q": "x" * 201}, headers=h), 400, "q"
    )
    assert_problem(
        client.get(site.acme.url(MENU), query_string={"recent": "task:A-1," * 200}, headers=h),
        400,
        "recent",
    )
    assert client.get(site.acme.url(MENU) + "?q=%00", headers=h).status_code == 400
    for q in ("%_\\'\"<>;--", "WEB-99999999999", "WEB-0", "Ω≈ç√", "A" * 200):
        resp = client.get(site.acme.url(MENU), query_string={"q": q}, headers=h)
        assert resp.status_code == 200, (q, resp.get_data(as_text=True))
        assert [i for i in resp.get_json()["items"] if i["kind"] == "task"] == []
    for q in ("*", "-1", "NOT", '"', "web-", "(", "OR AND"):
        resp = client.get(site.acme.url(MENU), query_string={"q": q}, headers=h)
        assert resp.status_code == 200, (q, resp.get_data(as_text=True))


def test_every_settings_section_can_be_opened_from_the_menu():
    """The settings sidebar and the menu's pages are two lists; Webhooks was in the
    first only, so Ctrl-K "webhooks" found nothing."""
    import re
    from pathlib import Path

    from workspace.tracker.command_menu.service import PAGES

    layout = Path(__file__).resolve().parents[2] / "templates" / "settings" / "_layout.html"
    sections = re.findall(r'\("([^"]+)", "([a-z_]+\.[a-z_]+)"\)', layout.read_text())
    assert len(sections) >= 12
    menu = {endpoint: label for label, endpoint, _ in PAGES}
    assert {e: f"Settings: {label}" for label, e in sections} == {
        e: menu.get(e) for _, e in sections
    }
