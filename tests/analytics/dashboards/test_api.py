"""The dashboards API: the permission table for every operation, visibility, widget
defaults, dense positions, PQL errors with their position."""

from __future__ import annotations

import pytest

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard

# (method, path template, JSON body or None, changes the dashboard?)
OPERATIONS = [
    ("GET", "/dashboards/{d}", None, False),
    ("GET", "/dashboards/{d}/compute", None, False),
    ("GET", "/dashboards/{d}/export.html", None, False),
    ("GET", "/dashboards/{d}/export.pdf", None, False),
    ("PATCH", "/dashboards/{d}", {"name": "Renamed"}, True),
    ("POST", "/dashboards/{d}/publish", None, True),
    ("POST", "/dashboards/{d}/make-private", None, True),
    ("POST", "/dashboards/{d}/widgets", {"title": "New"}, True),
    ("PATCH", "/dashboards/{d}/widgets/{w}", {"title": "Changed"}, True),
    ("POST", "/dashboards/{d}/widgets/order", {"widget_ids": ["{w}"]}, True),
    ("DELETE", "/dashboards/{d}/widgets/{w}", None, True),
    ("DELETE", "/dashboards/{d}", None, True),
]


def _call(client, who, method, path, body, ids, org_url=None):
    path = path.format(**ids)
    if body is not None:
        body = {
            k: ([x.format(**ids) for x in v] if isinstance(v, list) else v) for k, v in body.items()
        }
    url = (org_url or who.url)(path)
    return client.open(url, method=method, json=body, headers=who.headers)


@pytest.mark.parametrize("visibility", ["private", "workspace"])
@pytest.mark.parametrize("method,path,body,writes", OPERATIONS)
def test_permission_table(client, world: World, visibility, method, path, body, writes):
    """Owner: everything. Another member: reads a workspace dashboard, 403 on writes
    to it, 404 on anything private. Another org: 404 always, on either org's URL."""
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], title="W")
    if visibility == "workspace":
        client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    ids = {"d": dash["id"], "w": widget["id"]}

    member = _call(client, world.member, method, path, body, ids)
    if visibility == "private":
        assert member.status_code == 404
    else:
        assert member.status_code == (403 if writes else 200), member.get_data(as_text=True)
    # Globex's owner: on Acme's URL their token finds no org; on their own, no dashboard.
    assert _call(client, world.globex, method, path, body, ids, world.acme.url).status_code == 404
    assert _call(client, world.globex, method, path, body, ids).status_code == 404

    # Nothing the others tried changed anything.
    after = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert after.get_json()["name"] == "Team"
    assert [w["title"] for w in after.get_json()["widgets"]] == ["W"]
    assert after.get_json()["visibility"] == visibility

    owner = _call(client, world.acme, method, path, body, ids)
    assert owner.status_code in (200, 201, 204), owner.get_data(as_text=True)


def test_list_and_create_by_caller(client, world: World):
    """Any member lists and creates their own dashboards; another org's token on
    Acme's URL is a 404 for both, and creates nothing there."""
    url = world.url("/dashboards")
    made = client.post(url, json={"name": "Mia's"}, headers=world.member.headers)
    assert made.status_code == 201 and made.get_json()["owner_id"] == str(world.member.owner_id)
    assert made.get_json()["visibility"] == "private" and made.get_json()["widgets"] == []
    assert client.get(url, headers=world.member.headers).status_code == 200
    for method in ("GET", "POST"):
        resp = client.open(
            url, method=method, json={"name": "Intruder"}, headers=world.globex.headers
        )
        assert resp.status_code == 404 and resp.mimetype == "application/problem+json"
    names = [d["name"] for d in client.get(url, headers=world.member.headers).get_json()]
    assert names == ["Mia's"]
    assert client.get(url).status_code == 401


def test_list_shows_mine_and_published_only(client, world: World):
    mine = new_dashboard(client, world.acme, name="Owner private")
    shared = new_dashboard(client, world.acme, name="Owner shared")
    client.post(world.url(f"/dashboards/{shared['id']}/publish"), headers=world.acme.headers)
    hers = new_dashboard(client, world.member, name="Mia private")

    def names(who):
        resp = client.get(who.url("/dashboards"), headers=who.headers)
        return {d["name"] for d in resp.get_json()}

    assert names(world.acme) == {"Owner private", "Owner shared"}
    assert names(world.member) == {"Owner shared", "Mia private"}
    assert names(world.globex) == set()
    assert mine["visibility"] == "private" and hers["widgets"] == []


def test_publishing_changes_who_reads_not_who_edits(client, world: World):
    dash = new_dashboard(client, world.acme)
    url = world.url(f"/dashboards/{dash['id']}")
    assert client.get(url, headers=world.member.headers).status_code == 404
    client.post(url + "/publish", headers=world.acme.headers)
    assert client.get(url, headers=world.member.headers).status_code == 200
    resp = client.patch(url, json={"name": "Mine now"}, headers=world.member.headers)
    assert resp.status_code == 403
    assert "owner" in resp.get_json()["detail"]
    client.post(url + "/make-private", headers=world.acme.headers)
    assert client.get(url, headers=world.member.headers).status_code == 404


def test_new_dashboard_is_private_and_empty(client, world: World):
    dash = new_dashboard(client, world.acme, name="Fresh", pql_filter="priority = high")
    assert dash["visibility"] == "private"
    assert dash["widgets"] == []
    assert dash["owner_id"] == str(world.acme.owner_id)
    assert dash["pql_filter"] == "priority = high"


def test_filter_set_change_clear(client, world: World):
    dash = new_dashboard(client, world.acme)
    url = world.url(f"/dashboards/{dash['id']}")
    h = world.acme.headers
    assert (
        client.patch(url, json={"pql_filter": "kind = bug"}, headers=h).get_json()["pql_filter"]
        == "kind = bug"
    )
    # Renaming alone leaves the filter as it is.
    assert client.patch(url, json={"name": "X"}, headers=h).get_json()["pql_filter"] == "kind = bug"
    assert client.patch(url, json={"pql_filter": None}, headers=h).get_json()["pql_filter"] is None
    client.patch(url, json={"pql_filter": "kind = bug"}, headers=h)
    assert client.patch(url, json={"pql_filter": "  "}, headers=h).get_json()["pql_filter"] is None


@pytest.mark.parametrize(
    "field,value,expected",
    [
        ("chart_type", "radar", "bar"),
        ("chart_type", None, "bar"),
        ("chart_type", 7, "bar"),
        ("metric", "velocity", "count"),
        ("metric", None, "count"),
        ("dimension", "colour", "status"),
        ("dimension", ["status"], "status"),
        ("span", 3, 1),
        ("span", "wide", 1),
        ("span", None, 1),
        ("project_id", "not-a-uuid", None),
        ("project_id", "00000000-0000-0000-0000-000000000000", None),
        ("title", "", "Tasks by status"),
        ("title", None, "Tasks by status"),
    ],
)
def test_unknown_widget_values_fall_back_to_defaults(client, world: World, field, value, expected):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], **{field: value})
    assert widget[field] == expected
    # The same on edit: an unknown value resets that field to its default.
    good = add_widget(
        client, world.acme, dash["id"], chart_type="pie", metric="done", dimension="kind", span=2
    )
    resp = client.patch(
        world.url(f"/dashboards/{dash['id']}/widgets/{good['id']}"),
        json={field: value},
        headers=world.acme.headers,
    )
    assert resp.status_code == 200
    edited = resp.get_json()
    if field == "title":
        assert edited["title"] == "Completed tasks by kind"
    else:
        assert edited[field] == expected
    # Fields not sent keep their values.
    for key, kept in (
        ("chart_type", "pie"),
        ("metric", "done"),
        ("dimension", "kind"),
        ("span", 2),
    ):
        if key != field:
            assert edited[key] == kept


def test_missing_values_take_every_default(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"])
    assert {k: widget[k] for k in ("chart_type", "metric", "dimension", "span", "filter")} == {
        "chart_type": "bar",
        "metric": "count",
        "dimension": "status",
        "span": 1,
        "filter": None,
    }
    assert widget["project_id"] is None and widget["title"] == "Tasks by status"


def test_another_orgs_project_is_not_a_scope(client, world: World):
    """A Globex project id on an Acme widget falls back to org-wide, never leaks."""
    other = client.get(world.globex.url("/projects"), headers=world.globex.headers).get_json()
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], project_id=other[0]["id"])
    assert widget["project_id"] is None
    scoped = add_widget(client, world.acme, dash["id"], project_id=str(world.web_id))
    assert scoped["project_id"] == str(world.web_id)


@pytest.mark.parametrize(
    "where,body,field",
    [
        ("dashboard", {"name": "D", "pql_filter": "priority = "}, "pql_filter"),
        ("widget", {"filter": "colour = red"}, "filter"),
    ],
)
def test_pql_errors_are_422_naming_the_position(client, world: World, where, body, field):
    h = world.acme.headers
    if where == "dashboard":
        resp = client.post(world.url("/dashboards"), json=body, headers=h)
    else:
        dash = new_dashboard(client, world.acme)
        resp = client.post(world.url(f"/dashboards/{dash['id']}/widgets"), json=body, headers=h)
    assert resp.status_code == 422
    problem = resp.get_json()
    assert "line 1, column" in problem["detail"]
    assert problem["errors"][0]["field"] == field
    if where == "dashboard":
        assert client.get(world.url("/dashboards"), headers=h).get_json() == []
    else:
        saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=h).get_json()
        assert saved["widgets"] == []


def test_widget_filter_error_on_edit_keeps_the_old_filter(client, world: World):
    dash = new_dashboard(client, world.acme)
    widget = add_widget(client, world.acme, dash["id"], filter="kind = bug")
    url = world.url(f"/dashboards/{dash['id']}/widgets/{widget['id']}")
    resp = client.patch(url, json={"filter": "kind = = bug"}, headers=world.acme.headers)
    assert resp.status_code == 422 and "column 8" in resp.get_json()["detail"]
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["widgets"][0]["filter"] == "kind = bug"


def _positions(client, world, dash_id):
    body = client.get(world.url(f"/dashboards/{dash_id}"), headers=world.acme.headers).get_json()
    return [(w["title"], w["position"]) for w in body["widgets"]]


def test_positions_stay_dense_through_add_remove_reorder(client, world: World):
    dash = new_dashboard(client, world.acme)
    ids = [add_widget(client, world.acme, dash["id"], title=t)["id"] for t in "ABCD"]
    assert _positions(client, world, dash["id"]) == [("A", 0), ("B", 1), ("C", 2), ("D", 3)]
    h = world.acme.headers
    client.delete(world.url(f"/dashboards/{dash['id']}/widgets/{ids[1]}"), headers=h)
    assert _positions(client, world, dash["id"]) == [("A", 0), ("C", 1), ("D", 2)]
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets/order"),
        json={"widget_ids": [ids[3], ids[0]]},
        headers=h,
    )
    assert resp.status_code == 200
    # Named ones first, the one left out keeps its place after them.
    assert _positions(client, world, dash["id"]) == [("D", 0), ("A", 1), ("C", 2)]
    add_widget(client, world.acme, dash["id"], title="E")
    assert _positions(client, world, dash["id"])[-1] == ("E", 3)


def test_patch_position_moves_the_widget_and_keeps_positions_dense(client, world: World):
    dash = new_dashboard(client, world.acme)
    ids = {t: add_widget(client, world.acme, dash["id"], title=t)["id"] for t in "ABCD"}

    def move(which, position, **more):
        return client.patch(
            world.url(f"/dashboards/{dash['id']}/widgets/{ids[which]}"),
            json={"position": position, **more},
            headers=world.acme.headers,
        )

    resp = move("D", 1)
    assert resp.status_code == 200 and resp.get_json()["position"] == 1
    assert _positions(client, world, dash["id"]) == [("A", 0), ("D", 1), ("B", 2), ("C", 3)]
    resp = move("A", 2, title="A2", span=2)  # settings and position in one PATCH
    assert resp.get_json()["position"] == 2 and resp.get_json()["span"] == 2
    assert _positions(client, world, dash["id"]) == [("D", 0), ("B", 1), ("A2", 2), ("C", 3)]
    # Past the end: clamped to last, as a stale tab that missed a removal would expect.
    assert move("D", 99).get_json()["position"] == 3
    assert _positions(client, world, dash["id"]) == [("B", 0), ("A2", 1), ("C", 2), ("D", 3)]
    assert move("C", 2.0).get_json()["position"] == 2  # where it already is: nothing moves
    assert _positions(client, world, dash["id"]) == [("B", 0), ("A2", 1), ("C", 2), ("D", 3)]

    for bad in (-1, 1.5, "2", None, True):
        resp = move("B", bad)
        assert resp.status_code == 400, bad
        assert resp.get_json()["errors"][0]["field"] == "position"
    assert _positions(client, world, dash["id"]) == [("B", 0), ("A2", 1), ("C", 2), ("D", 3)]

    events = client.get(
        world.url("/events"),
        query_string={"kind": "dashboard.widget_updated"},
        headers=world.acme.headers,
    ).get_json()
    assert {"widget_id": ids["D"], "position": 3} in [e["data"] for e in events]


def test_new_widgets_are_appended_whatever_position_they_ask_for(client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="A")
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets"),
        json={"title": "B", "position": 0},
        headers=world.acme.headers,
    )
    assert resp.status_code == 400 and resp.get_json()["errors"][0]["field"] == "position"
    assert _positions(client, world, dash["id"]) == [("A", 0)]


def test_reorder_with_a_foreign_widget_is_refused(client, world: World):
    one = new_dashboard(client, world.acme)
    two = new_dashboard(client, world.acme, name="Other")
    stranger = add_widget(client, world.acme, two["id"])
    resp = client.post(
        world.url(f"/dashboards/{one['id']}/widgets/order"),
        json={"widget_ids": [stranger["id"]]},
        headers=world.acme.headers,
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == "widget_ids"


def test_deleting_a_dashboard_records_an_event(client, world: World):
    dash = new_dashboard(client, world.acme)
    assert (
        client.delete(
            world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers
        ).status_code
        == 204
    )
    events = client.get(
        world.url("/events"), query_string={"kind": "dashboard."}, headers=world.acme.headers
    ).get_json()
    assert {e["kind"] for e in events} >= {"dashboard.created", "dashboard.deleted"}
    assert (
        client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers).status_code
        == 404
    )


def test_nul_characters_never_reach_the_database(client, world: World):
    h = world.acme.headers
    resp = client.post(world.url("/dashboards"), json={"name": "a\x00b"}, headers=h)
    assert resp.status_code == 400 and resp.get_json()["errors"][0]["field"] == "name"
    dash = new_dashboard(client, world.acme)
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets"), json={"title": "x\x00y"}, headers=h
    )
    assert resp.status_code == 400 and resp.get_json()["errors"][0]["field"] == "title"
    resp = client.post(
        world.url(f"/dashboards/{dash['id']}/widgets"), json={"filter": "kind = \x00"}, headers=h
    )
    assert resp.status_code == 400
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/compute"), query_string={"filter": "\x00"}, headers=h
    )
    assert resp.status_code == 400


def test_a_default_title_follows_the_settings_and_a_chosen_one_stays(client, world: World):
    """A widget saved with a blank title took "Tasks by priority" as fixed text, which
    stayed over a chart regrouped by kind (and in its PDF and alert mails)."""
    dash = new_dashboard(client, world.acme)
    plain = add_widget(client, world.acme, dash["id"], dimension="priority")
    named = add_widget(client, world.acme, dash["id"], title="Triage", dimension="priority")
    assert plain["title"] == "Tasks by priority"

    def regroup(widget: dict) -> str:
        url = world.url(f"/dashboards/{dash['id']}/widgets/{widget['id']}")
        resp = client.patch(url, json={"dimension": "kind"}, headers=world.acme.headers)
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()["title"]

    assert regroup(plain) == "Tasks by kind"
    assert regroup(named) == "Triage"
