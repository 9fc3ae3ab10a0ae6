"""The canvas and the list without a browser (issue #15): duplicating a widget and a
dashboard, the list's owner / visibility / widget count / last updated and its search,
the widget's top N, and who may do each of the new things."""

from __future__ import annotations

from html import unescape

import pytest
from sqlalchemy import event, select

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import add_person, assert_problem, bearer, create_agent, login
from workspace.core.models import Event
from workspace.extensions import db

EDIT_403 = "Only the dashboard's owner can change it."
AGENT_403 = "An agent cannot do this"


def _page(world: World, dash_id: str, path: str = "") -> str:
    return f"/o/{world.acme.slug}/dashboards/{dash_id}{path}"


def _events(app, kind: str, subject: str) -> list[Event]:
    with app.app_context():
        return list(
            db.session.scalars(select(Event).where(Event.kind == kind, Event.subject == subject))
        )


def _read(client, world: World, who, dash_id: str) -> dict:
    resp = client.get(world.acme.url(f"/dashboards/{dash_id}"), headers=who.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


# -- duplicate a widget -------------------------------------------------------------


def test_duplicate_widget_goes_right_after_it_with_every_setting(app, client, world: World):
    dash = new_dashboard(client, world.acme)
    first = add_widget(client, world.acme, dash["id"], title="First")
    second = add_widget(
        client,
        world.acme,
        dash["id"],
        title="Bugs",
        chart_type="table",
        metric="open",
        dimension="assignee",
        project_id=str(world.web_id),
        filter="kind = bug",
        span=2,
        top_n=7,
    )
    third = add_widget(client, world.acme, dash["id"], title="Third")
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets/{second['id']}/duplicate"),
        headers=world.acme.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    copy = resp.get_json()
    assert copy["id"] != second["id"]
    assert copy["title"] == "Copy of Bugs"
    for key in ("chart_type", "metric", "dimension", "project_id", "filter", "span", "top_n"):
        assert copy[key] == second[key], key
    widgets = _read(client, world, world.acme, dash["id"])["widgets"]
    assert [w["id"] for w in widgets] == [first["id"], second["id"], copy["id"], third["id"]]
    assert [w["position"] for w in widgets] == [0, 1, 2, 3]
    (recorded,) = [
        e
        for e in _events(app, "dashboard.widget_added", dash["id"])
        if e.data.get("widget_id") == copy["id"]
    ]
    assert recorded.actor_id == world.acme.owner_id
    assert recorded.data["duplicated_from"] == second["id"]


def test_duplicate_widget_page_route_redirects_to_the_copy(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], title="Only")
    login(client, world.acme.owner_email)
    resp = client.post(
        _page(world, dash["id"], f"/widgets/{widget['id']}/duplicate"),
        data={"view_filter": "priority = high"},
    )
    assert resp.status_code == 303
    widgets = _read(client, world, world.acme, dash["id"])["widgets"]
    assert [w["title"] for w in widgets] == ["Only", "Copy of Only"]
    assert "filter=priority" in resp.location and resp.location.endswith(
        f"#widget-{widgets[1]['id']}"
    )
    # The owner's menu offers it on every card.
    html = client.get(_page(world, dash["id"])).get_data(as_text=True)
    assert html.count('class="dropdown-item duplicate-widget"') == 2
    assert 'aria-label="Actions for Copy of Only"' in html


def test_duplicate_an_unknown_widget_is_a_404(client, world: World):
    dash = new_dashboard(client, world.acme)
    other = new_dashboard(client, world.acme, name="Other")
    widget = add_widget(client, world.acme, other["id"])
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets/{widget['id']}/duplicate"),
        headers=world.acme.headers,
    )
    assert_problem(resp, 404)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets/not-a-uuid/duplicate"),
        headers=world.acme.headers,
    )
    assert resp.status_code == 404


def test_a_long_title_copies_within_the_limit(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], title="x" * 200)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets/{widget['id']}/duplicate"),
        headers=world.acme.headers,
    )
    assert resp.status_code == 201
    title = resp.get_json()["title"]
    assert len(title) == 200 and title.startswith("Copy of x") and title.endswith("…")


# -- duplicate a dashboard ----------------------------------------------------------


def test_duplicate_my_dashboard_copies_filter_and_widgets(app, client, world: World):
    dash = new_dashboard(client, world.acme, name="Mine", pql_filter="kind = bug")
    add_widget(client, world.acme, dash["id"], title="A", span=2, top_n=3)
    add_widget(client, world.acme, dash["id"], title="B", chart_type="number")
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    resp = client.post(world.url(f"/dashboards/{dash['id']}/duplicate"), headers=world.acme.headers)
    assert resp.status_code == 201, resp.get_json()
    copy = resp.get_json()
    assert copy["name"] == "Copy of Mine"
    assert copy["visibility"] == "private"  # a copy of a published one starts private
    assert copy["pql_filter"] == "kind = bug"
    assert copy["owner_id"] == str(world.acme.owner_id)
    assert [(w["title"], w["span"], w["top_n"], w["position"]) for w in copy["widgets"]] == [
        ("A", 2, 3, 0),
        ("B", 1, None, 1),
    ]
    source = _read(client, world, world.acme, dash["id"])
    assert {w["id"] for w in source["widgets"]}.isdisjoint({w["id"] for w in copy["widgets"]})
    (created,) = _events(app, "dashboard.created", copy["id"])
    assert created.data == {"duplicated_from": dash["id"]}
    assert created.actor_id == world.acme.owner_id


def test_a_shared_dashboard_becomes_my_private_copy(client, world: World):
    dash = new_dashboard(client, world.acme, name="Team")
    add_widget(client, world.acme, dash["id"], title="Open work", metric="open")
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/duplicate"), headers=world.member.headers
    )
    assert resp.status_code == 201
    copy = resp.get_json()
    assert copy["owner_id"] == str(world.member.owner_id) and copy["visibility"] == "private"
    assert [w["title"] for w in copy["widgets"]] == ["Open work"]
    # Mia edits her copy; the original is untouched, and its owner does not see the copy.
    resp = client.patch(
        world.url(f"/dashboards/{copy['id']}"),
        json={"name": "Mine now"},
        headers=world.member.headers,
    )
    assert resp.status_code == 200
    assert _read(client, world, world.acme, dash["id"])["name"] == "Team"
    resp = client.get(world.url(f"/dashboards/{copy['id']}"), headers=world.acme.headers)
    assert resp.status_code == 404


def test_someone_elses_private_dashboard_cannot_be_copied(client, world: World):
    dash = new_dashboard(client, world.acme, name="Secret")
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/duplicate"), headers=world.member.headers
    )
    assert_problem(resp, 404)
    listed = client.get(world.url("/dashboards"), headers=world.member.headers).get_json()
    assert all(d["name"] != "Copy of Secret" for d in listed)
    # Another org's dashboard, and an id that is no dashboard: 404 as well.
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/duplicate"), headers=world.globex.headers
    )
    assert resp.status_code == 404
    resp = client.post(
        world.url("/dashboards/00000000-0000-0000-0000-000000000000/duplicate"),
        headers=world.acme.headers,
    )
    assert_problem(resp, 404)


def test_duplicate_dashboard_page_button_opens_the_copy(client, world: World):
    dash = new_dashboard(client, world.acme, name="Team")
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    login(client, world.member.owner_email)
    html = client.get(_page(world, dash["id"])).get_data(as_text=True)
    assert "duplicate-dashboard" in html  # a reader may copy it
    resp = client.post(_page(world, dash["id"], "/duplicate"))
    assert resp.status_code == 303
    copy_page = client.get(resp.location)
    assert copy_page.status_code == 200
    assert "<h1>Copy of Team</h1>" in copy_page.get_data(as_text=True)


# -- the list -------------------------------------------------------------------------


def test_list_shows_owner_visibility_widget_count_and_last_update(client, world: World):
    mine = new_dashboard(client, world.acme, name="Alpha board")
    for title in ("a", "b", "c"):
        add_widget(client, world.acme, mine["id"], title=title)
    shared = new_dashboard(client, world.member, name="Beta board")
    client.post(world.url(f"/dashboards/{shared['id']}/publish"), headers=world.member.headers)
    new_dashboard(client, world.member, name="Gamma private")
    login(client, world.acme.owner_email)
    html = client.get(f"/o/{world.acme.slug}/dashboards").get_data(as_text=True)
    assert "Gamma private" not in html
    rows = html.split('<tr data-dashboard-id="')[1:]
    assert [r.split('"')[0] for r in rows] == [mine["id"], shared["id"]]
    alpha, beta = rows
    assert '<td class="dashboard-owner" data-label="Owner">You</td>' in alpha
    assert ">Private<" in alpha
    assert '<td class="num widget-count" data-label="Widgets">3</td>' in alpha
    assert '<td class="dashboard-owner" data-label="Owner">Mia</td>' in beta
    assert ">Workspace<" in beta
    assert '<td class="num widget-count" data-label="Widgets">0</td>' in beta
    assert "UTC</time>" in alpha


def test_list_counts_in_one_statement(app, client, world: World):
    for i in range(5):
        dash = new_dashboard(client, world.acme, name=f"Board {i}")
        for _ in range(i):
            add_widget(client, world.acme, dash["id"])
    login(client, world.acme.owner_email)
    client.get(f"/o/{world.acme.slug}/dashboards")  # warm up
    statements: list[str] = []
    with app.app_context():
        engine = db.engine

    def count(conn, cursor, statement, *args):
        if "dashboard" in statement.lower():
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        html = client.get(f"/o/{world.acme.slug}/dashboards").get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert html.count('<tr data-dashboard-id="') == 5
    assert len([s for s in statements if "dashboard_widgets" in s]) == 1, statements


NAMES = ("Team health", "The TEAM", "50% done", "snake_case", "Sales")


@pytest.mark.parametrize(
    "q, shown",
    [
        ("team", ["Team health", "The TEAM"]),
        ("  HEALTH ", ["Team health"]),
        ("50%", ["50% done"]),
        ("_", ["snake_case"]),
        ("nothing like it", []),
    ],
)
def test_search_by_name(client, world: World, q, shown):
    for name in NAMES:
        new_dashboard(client, world.acme, name=name)
    login(client, world.acme.owner_email)
    resp = client.get(f"/o/{world.acme.slug}/dashboards", query_string={"q": q})
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    listed = [n for n in NAMES if f">{n}</a>" in html]
    assert listed == shown
    if not shown:
        assert "No dashboard matches" in html


def test_search_too_long_is_refused_by_the_field(client, world: World):
    new_dashboard(client, world.acme, name="Kept")
    login(client, world.acme.owner_email)
    resp = client.get(f"/o/{world.acme.slug}/dashboards", query_string={"q": "x" * 201})
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert 'id="dashboard-search-error"' in html and ">Kept</a>" in html
    assert 'value="' + "x" * 201 + '"' in html  # the box keeps it, to be shortened


# -- top N ----------------------------------------------------------------------------


@pytest.mark.parametrize("value, saved", [(1, 1), (50, 50), (12.0, 12), (None, None)])
def test_top_n_accepted(client, world: World, value, saved):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], top_n=value)
    assert widget["top_n"] == saved


# "12" and "" are a form's text; JSON says 12 or null (the form test below sends text).
@pytest.mark.parametrize("value", [0, 51, -3, 2.5, "ten", "12", "", True, [5], 1e400])
def test_top_n_refused_naming_the_field(client, world: World, value):
    dash = new_dashboard(client, world.acme)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets"),
        json={"title": "T", "top_n": value},
        headers=world.acme.headers,
    )
    assert_problem(resp, 400, "top_n")
    assert "between 1 and 50" in resp.get_json()["errors"][0]["message"]
    assert _read(client, world, world.acme, dash["id"])["widgets"] == []


def test_top_n_patch_sets_and_clears(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], top_n=5)
    url = world.url(f"/dashboards/{dash['id']}/widgets/{widget['id']}")
    resp = client.patch(url, json={"title": "Renamed"}, headers=world.acme.headers)
    assert resp.get_json()["top_n"] == 5  # left out: unchanged
    resp = client.patch(url, json={"top_n": None}, headers=world.acme.headers)
    assert resp.get_json()["top_n"] is None


def test_top_n_in_the_widget_form(client, world: World):
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    form = client.get(_page(world, dash["id"], "/widgets/new")).get_data(as_text=True)
    assert 'for="f-top_n">Show the top N (rest as Other)</label>' in form
    resp = client.post(
        _page(world, dash["id"], "/widgets/new"),
        data={"title": "T", "top_n": "99", "action": "save"},
    )
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert 'id="f-top_n-error"' in html or "between 1 and 50" in html
    assert 'value="99"' in html  # what was typed stays
    assert _read(client, world, world.acme, dash["id"])["widgets"] == []
    resp = client.post(
        _page(world, dash["id"], "/widgets/new"),
        data={"title": "T", "top_n": "8", "action": "save"},
    )
    assert resp.status_code == 303
    (widget,) = _read(client, world, world.acme, dash["id"])["widgets"]
    assert widget["top_n"] == 8
    edit = client.get(_page(world, dash["id"], f"/widgets/{widget['id']}/edit")).get_data(
        as_text=True
    )
    assert 'name="top_n" value="8"' in edit
    resp = client.post(
        _page(world, dash["id"], f"/widgets/{widget['id']}/edit"),
        data={"title": "T", "top_n": "", "action": "save"},
    )
    assert resp.status_code == 303
    assert _read(client, world, world.acme, dash["id"])["widgets"][0]["top_n"] is None


# -- the show page: refresh, auto-refresh, PDF progress, the view filter ----------------


def test_show_page_has_refresh_auto_refresh_and_a_full_filter(client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"])
    login(client, world.acme.owner_email)
    long_filter = "priority in (urgent, high) AND kind = bug AND " + " OR ".join(
        f'title ~ "word{i}"' for i in range(12)
    )
    html = client.get(_page(world, dash["id"]), query_string={"filter": long_filter}).get_data(
        as_text=True
    )
    assert f'data-dashboard-id="{dash["id"]}"' in html and "data-refresh" in html
    assert '<label class="small" for="auto-refresh">Auto-refresh</label>' in html
    for minutes in ("0", "1", "5", "15"):
        assert f'<option value="{minutes}">' in html
    assert 'id="computed-at"' in html
    # The whole filter is in a textarea, never cut to an input's width.
    assert '<textarea class="view-filter-input" id="view-filter"' in html
    assert html.count("word11") >= 1


# -- who may do it ----------------------------------------------------------------------

ROLES = ("owner", "viewer", "commenter", "member", "admin", "agent")


@pytest.fixture
def callers(app, client, world: World) -> dict:
    """The dashboard's owner, org members with each project role, an org admin and an
    agent (with member rights in the project)."""
    resp = client.post(
        world.url("/projects/" + str(world.web_id) + "/members"),
        json={"account_id": str(world.member.owner_id), "role": "viewer"},
        headers=world.acme.headers,
    )
    assert resp.status_code in (200, 201, 204), resp.get_json()
    out = {"owner": world.acme, "viewer": world.member}
    for role in ("commenter", "member"):
        person = add_person(app, world.acme.org_id, f"{role}@acme.test")
        resp = client.post(
            world.url(f"/projects/{world.web_id}/members"),
            json={"account_id": str(person.owner_id), "role": role},
            headers=world.acme.headers,
        )
        assert resp.status_code in (200, 201, 204), resp.get_json()
        out[role] = person
    out["admin"] = add_person(app, world.acme.org_id, "admin@acme.test", role="admin")
    out["agent"] = create_agent(client, world.acme, project_ids=[str(world.web_id)])
    return out


def _headers(callers: dict, role: str) -> dict:
    return bearer(callers[role]["token"]) if role == "agent" else callers[role].headers


def _dashboard_with_widget(client, world: World, shared: bool) -> tuple[str, str]:
    dash = new_dashboard(client, world.acme, name="Board")
    widget = add_widget(client, world.acme, dash["id"], title="W")
    if shared:
        client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    return dash["id"], widget["id"]


# Expected status per role: (shared dashboard, private dashboard).
DUPLICATE_DASHBOARD = {
    "owner": (201, 201),
    "viewer": (201, 404),
    "commenter": (201, 404),
    "member": (201, 404),
    "admin": (201, 404),
    "agent": (403, 403),
}
DUPLICATE_WIDGET = {
    "owner": (201, 201),
    "viewer": (403, 404),
    "commenter": (403, 404),
    "member": (403, 404),
    "admin": (403, 404),
    "agent": (403, 403),
}


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "private"])
@pytest.mark.parametrize("role", ROLES)
def test_api_permission_table(client, world: World, callers, role, shared):
    dash_id, widget_id = _dashboard_with_widget(client, world, shared)
    headers = _headers(callers, role)
    resp = client.post(world.url(f"/dashboards/{dash_id}/duplicate"), headers=headers)
    expected = DUPLICATE_DASHBOARD[role][0 if shared else 1]
    assert resp.status_code == expected, resp.get_json()
    if expected == 403:
        assert AGENT_403 in resp.get_json()["detail"]
    resp = client.post(
        world.url(f"/dashboards/{dash_id}/widgets/{widget_id}/duplicate"), headers=headers
    )
    expected = DUPLICATE_WIDGET[role][0 if shared else 1]
    assert resp.status_code == expected, resp.get_json()
    if expected == 403:
        assert (AGENT_403 if role == "agent" else EDIT_403) in resp.get_json()["detail"]
    widgets = _read(client, world, world.acme, dash_id)["widgets"]
    assert len(widgets) == (2 if expected == 201 else 1)


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "private"])
@pytest.mark.parametrize("role", ROLES)
def test_html_permission_table(app, client, world: World, callers, role, shared):
    dash_id, widget_id = _dashboard_with_widget(client, world, shared)
    browser = app.test_client()
    if role == "agent":
        # An agent's token opens no page: pages take a browser session only.
        for path in ("/duplicate", f"/widgets/{widget_id}/duplicate"):
            resp = browser.post(_page(world, dash_id, path), headers=_headers(callers, role))
            assert resp.status_code == 302 and "/signin" in resp.location
        assert len(_read(client, world, world.acme, dash_id)["widgets"]) == 1
        return
    login(browser, callers[role].owner_email)
    resp = browser.post(_page(world, dash_id, "/duplicate"))
    expected = DUPLICATE_DASHBOARD[role][0 if shared else 1]
    assert resp.status_code == (303 if expected == 201 else expected)
    resp = browser.post(_page(world, dash_id, f"/widgets/{widget_id}/duplicate"))
    expected = DUPLICATE_WIDGET[role][0 if shared else 1]
    assert resp.status_code == (303 if expected == 201 else expected)
    if expected == 403:
        assert EDIT_403 in unescape(resp.get_data(as_text=True))
    assert len(_read(client, world, world.acme, dash_id)["widgets"]) == (
        2 if expected == 201 else 1
    )
