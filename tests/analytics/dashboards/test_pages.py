"""The dashboard pages without a browser: who sees what, forms that work without
JavaScript, and errors shown where they belong."""

from __future__ import annotations

import pytest

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.conftest import login

EDIT_MARKERS = ("drag-handle", "span-toggle", "edit-widget", "Publish to workspace", "add-widget")


def _page(world: World, dash_id: str, path: str = "") -> str:
    return f"/o/{world.acme.slug}/dashboards/{dash_id}{path}"


def test_owner_sees_controls_member_sees_none(client, world: World):
    dash = new_dashboard(client, world.acme, name="Shared board")
    widget = add_widget(client, world.acme, dash["id"], title="Bugs by status")
    login(client, world.acme.owner_email)
    html = client.get(_page(world, dash["id"])).get_data(as_text=True)
    assert all(marker in html for marker in EDIT_MARKERS)
    # A private dashboard does not exist for the member, not even in the list.
    other = client.application.test_client()
    login(other, world.member.owner_email)
    assert other.get(_page(world, dash["id"])).status_code == 404
    assert "Shared board" not in other.get(f"/o/{world.acme.slug}/dashboards").get_data(
        as_text=True
    )
    client.post(_page(world, dash["id"], "/publish"))
    html = other.get(_page(world, dash["id"])).get_data(as_text=True)
    assert "Bugs by status" in html
    assert not any(marker in html for marker in EDIT_MARKERS)
    body = other.get(_page(world, dash["id"], f"/widgets/{widget['id']}"))
    assert body.status_code == 200 and "data-plotly" in body.get_data(as_text=True)


@pytest.mark.parametrize(
    "path",
    ["/settings", "/publish", "/make-private", "/delete", "/widgets/order", "/widgets/new", "MOVE"],
)
def test_member_posts_to_owner_forms_are_refused(client, world: World, path):
    dash = new_dashboard(client, world.acme, name="Keep")
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    if path == "MOVE":
        widget = add_widget(client, world.acme, dash["id"], title="Only")
        path = f"/widgets/{widget['id']}/move"
    login(client, world.member.owner_email)
    resp = client.post(_page(world, dash["id"], path), data={"name": "Taken"})
    assert resp.status_code == 403
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["name"] == "Keep"
    assert [w["title"] for w in saved.get_json()["widgets"]] in ([], ["Only"])


def test_forms_work_without_javascript(client, world: World):
    login(client, world.acme.owner_email)
    resp = client.post(f"/o/{world.acme.slug}/dashboards", data={"name": "No JS"})
    assert resp.status_code == 303
    show = resp.headers["Location"]
    for title in ("A", "B"):
        resp = client.post(
            show + "/widgets/new",
            data={"title": title, "chart_type": "pie", "dimension": "kind", "action": "save"},
        )
        assert resp.status_code == 303
    dash_id = show.rsplit("/", 1)[1]
    ids = [
        w["id"]
        for w in client.get(
            world.url(f"/dashboards/{dash_id}"), headers=world.acme.headers
        ).get_json()["widgets"]
    ]
    # The grid form posted as is (e.g. a span button's formaction) keeps the view filter.
    resp = client.post(
        show + f"/widgets/{ids[0]}/span", data={"widget": ids, "view_filter": "kind = bug"}
    )
    assert resp.status_code == 303 and "filter=kind" in resp.headers["Location"]
    client.post(show + "/widgets/order", data={"widget": [ids[1], ids[0]]})
    saved = client.get(world.url(f"/dashboards/{dash_id}"), headers=world.acme.headers).get_json()
    assert [(w["title"], w["position"], w["span"]) for w in saved["widgets"]] == [
        ("B", 0, 1),
        ("A", 1, 2),
    ]
    client.post(show + f"/widgets/{ids[1]}/delete")
    saved = client.get(world.url(f"/dashboards/{dash_id}"), headers=world.acme.headers).get_json()
    assert [(w["title"], w["position"]) for w in saved["widgets"]] == [("A", 0)]


def test_widget_form_preview_and_pql_error(client, world: World):
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    url = _page(world, dash["id"], "/widgets/new")
    preview = client.post(url, data={"chart_type": "number", "action": "preview"})
    assert preview.status_code == 200
    assert 'class="headline-value">6<' in preview.get_data(as_text=True)
    bad = client.post(url, data={"filter": "kind = = bug", "action": "save"})
    assert bad.status_code == 400
    assert "line 1, column 8" in bad.get_data(as_text=True)
    assert "kind = = bug" in bad.get_data(as_text=True)  # what was typed stays
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["widgets"] == []
    # HTMX asks for the preview alone while the form changes.
    partial = client.get(url, query_string={"chart_type": "table"}, headers={"HX-Request": "true"})
    assert "<html" not in partial.get_data(as_text=True)
    assert "widget-table" in partial.get_data(as_text=True)
    # Saved, added or edited, the dashboard comes back at that card, not at its top.
    made = client.post(url, data={"title": "Kinds", "dimension": "kind", "action": "save"})
    got = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    (widget,) = got.get_json()["widgets"]
    assert made.status_code == 303 and made.location.endswith(f"#widget-{widget['id']}")
    edit = _page(world, dash["id"], f"/widgets/{widget['id']}/edit")
    edited = client.post(edit, data={"title": "Kinds!", "dimension": "kind", "action": "save"})
    assert edited.status_code == 303 and edited.location.endswith(f"#widget-{widget['id']}")


def test_settings_pql_error_shows_on_the_form(client, world: World):
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    resp = client.post(
        _page(world, dash["id"], "/settings"), data={"name": "X", "pql_filter": "colour = red"}
    )
    assert resp.status_code == 400
    assert "unknown field" in resp.get_data(as_text=True)
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["name"] == "Team"


def test_another_orgs_dashboard_page_is_404(client, world: World):
    dash = new_dashboard(client, world.acme)
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    login(client, world.globex.owner_email)
    assert client.get(_page(world, dash["id"])).status_code == 404
    assert client.get(f"/o/{world.globex.slug}/dashboards/{dash['id']}").status_code == 404


def test_delete_asks_through_htmx_then_goes_to_the_list(client, world: World):
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    html = client.get(_page(world, dash["id"])).get_data(as_text=True)
    assert 'data-confirm="Delete “Team” and its widgets? This cannot be undone."' in html
    resp = client.post(_page(world, dash["id"], "/delete"), headers={"HX-Request": "true"})
    assert resp.status_code == 204
    assert resp.headers["HX-Redirect"] == f"/o/{world.acme.slug}/dashboards"
    assert client.get(_page(world, dash["id"])).status_code == 404


def test_the_page_fills_every_card_from_one_shared_compute(app, client, world: World):
    from sqlalchemy import event

    from workspace.extensions import db

    dash = new_dashboard(client, world.acme)
    ids = [
        add_widget(client, world.acme, dash["id"], title=f"W{i}", metric=m)["id"]
        for i, m in enumerate(["count", "done", "open", "count"])
    ]
    login(client, world.acme.owner_email)
    page = client.get(_page(world, dash["id"])).get_data(as_text=True)
    assert page.count('hx-trigger="load"') == 1  # one request for all the bodies
    grouped: list[str] = []

    def spy(conn, cursor, statement, *args):
        if "GROUP BY" in statement:
            grouped.append(statement)

    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", spy)
    try:
        html = client.get(_page(world, dash["id"], "/bodies")).get_data(as_text=True)
    finally:
        with app.app_context():
            event.remove(db.engine, "before_cursor_execute", spy)
    assert len(grouped) == 1  # four status widgets, one statement
    for widget_id in ids:
        assert f'id="body-{widget_id}" hx-swap-oob="true"' in html
    assert html.count("data-plotly=") == 4
    bad = client.get(_page(world, dash["id"], "/bodies"), query_string={"filter": "kind ="})
    assert bad.get_data(as_text=True).count("could not be computed") == 4


def test_move_buttons_reorder_without_javascript(client, world: World):
    dash = new_dashboard(client, world.acme)
    ids = [add_widget(client, world.acme, dash["id"], title=t)["id"] for t in "ABC"]
    login(client, world.acme.owner_email)
    resp = client.post(
        _page(world, dash["id"], f"/widgets/{ids[2]}/move"),
        data={"direction": "earlier", "view_filter": "kind = bug"},
    )
    assert resp.status_code == 303 and "filter=kind" in resp.headers["Location"]
    client.post(_page(world, dash["id"], f"/widgets/{ids[0]}/move"), data={"direction": "earlier"})
    client.post(_page(world, dash["id"], f"/widgets/{ids[1]}/move"), data={"direction": "later"})
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert [(w["title"], w["position"]) for w in saved.get_json()["widgets"]] == [
        ("A", 0),
        ("C", 1),
        ("B", 2),
    ]


def test_too_long_input_is_refused_on_its_field_not_cut(client, world: World):
    """The forms go through the API's input models: a title over 200 characters is an
    error beside the title (a 400 that saves nothing), never silently shortened."""
    dash = new_dashboard(client, world.acme)
    login(client, world.acme.owner_email)
    long_title = "T" * 201
    resp = client.post(
        _page(world, dash["id"], "/widgets/new"), data={"title": long_title, "action": "save"}
    )
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert 'id="f-title-error"' in html and "at most 200 characters" in html
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["widgets"] == []
    blank = client.post(f"/o/{world.acme.slug}/dashboards", data={"name": "  "})
    assert blank.status_code == 400 and 'id="f-name-error"' in blank.get_data(as_text=True)
    renamed = client.post(_page(world, dash["id"], "/settings"), data={"name": "N" * 201})
    assert renamed.status_code == 400 and "at most 200 characters" in renamed.get_data(as_text=True)
    saved = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert saved.get_json()["name"] == "Team"
