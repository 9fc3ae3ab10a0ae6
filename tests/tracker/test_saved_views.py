"""Saved views (docs/saved_views.md): the service's rules, the JSON API's refusals and
the project page's forms and tabs."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from tests.factories import assert_problem, bearer, create_agent, login, new_task, setup_project
from workspace.extensions import db
from workspace.tracker.saved_views import service
from workspace.tracker.saved_views.models import SavedView


@pytest.fixture
def project(client, acme):
    project, _ = setup_project(client, acme)
    new_task(client, acme, project, title="Urgent login bug", priority="urgent")
    new_task(client, acme, project, title="Low docs chore", priority="low")
    return project


def views_url(acme, project, suffix=""):
    return acme.url(f"/projects/{project['id']}/views{suffix}")


def save(client, acme, project, headers=None, **body):
    body = {"name": "Urgent", "pql": "priority = urgent"} | body
    return client.post(views_url(acme, project), json=body, headers=headers or acme.headers)


def test_create_read_update_delete(client, acme, project):
    resp = save(client, acme, project, sort="priority", direction="asc", columns=["title"])
    assert resp.status_code == 201, resp.get_json()
    view = resp.get_json()
    assert view["name"] == "Urgent" and view["kind"] == "list" and view["shared"] is False
    assert view["columns"] == ["title"] and view["editable"] is True
    one = client.get(views_url(acme, project, f"/{view['id']}"), headers=acme.headers)
    assert one.get_json()["pql"] == "priority = urgent"
    patched = client.patch(
        views_url(acme, project, f"/{view['id']}"),
        json={"name": "Hot", "shared": True, "columns": None, "kind": "board"},
        headers=acme.headers,
    ).get_json()
    assert (patched["name"], patched["shared"], patched["columns"], patched["kind"]) == (
        "Hot",
        True,
        None,
        "board",
    )
    assert patched["sort"] == "priority"  # left out: unchanged
    listed = client.get(views_url(acme, project), headers=acme.headers).get_json()
    assert [v["name"] for v in listed] == ["Hot"]
    gone = client.delete(views_url(acme, project, f"/{view['id']}"), headers=acme.headers)
    assert gone.status_code == 204
    assert client.get(views_url(acme, project), headers=acme.headers).get_json() == []


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        # A blank name and a filter that cannot run are the service's refusals: 422.
        ({"name": ""}, 422, "name"),
        ({"name": "   "}, 422, "name"),
        ({"name": "x" * 81}, 400, "name"),
        ({"pql": "priority = = high"}, 422, "pql"),
        ({"pql": "nosuchfield = 1"}, 422, "pql"),
        ({"sort": "sideways"}, 400, "sort"),
        ({"kind": "gantt"}, 400, "kind"),
        ({"columns": []}, 400, "columns"),
        ({"columns": ["password"]}, 400, "columns.0"),
        ({"group_by": "mood"}, 400, "group_by"),
        ({"shared": "yes"}, 400, "shared"),
        ({"owner_id": "x"}, 400, None),
    ],
)
def test_bad_input_is_a_4xx_on_its_field(client, acme, project, body, status, field):
    assert_problem(save(client, acme, project, **body), status, field)


def test_bad_patch_and_duplicate_name(client, acme, project):
    view = save(client, acme, project).get_json()
    url = views_url(acme, project, f"/{view['id']}")
    assert_problem(client.patch(url, json={"pql": "((("}, headers=acme.headers), 422, "pql")
    assert_problem(client.patch(url, json={"name": None}, headers=acme.headers), 400, "name")
    assert_problem(save(client, acme, project, name=" Urgent "), 409, "name")
    other = save(client, acme, project, name="Other").get_json()
    other_url = views_url(acme, project, f"/{other['id']}")
    assert_problem(client.patch(other_url, json={"name": "Urgent"}, headers=acme.headers), 409)
    assert_problem(client.get(views_url(acme, project, "/not-a-uuid"), headers=acme.headers), 404)


def test_caps(client, acme, project, monkeypatch):
    monkeypatch.setattr(service, "MAX_PER_OWNER", 2)
    for name in ("a", "b"):
        assert save(client, acme, project, name=name).status_code == 201
    assert_problem(save(client, acme, project, name="c"), 409, "name")


def test_views_go_with_their_project(client, acme, project, app):
    save(client, acme, project, shared=True)
    resp = client.delete(acme.url(f"/projects/{project['id']}"), headers=acme.headers)
    assert resp.status_code == 204
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(SavedView)) == 0


def test_page_saves_opens_renames_and_deletes(client, acme, project):
    login(client, acme.owner_email)
    page_url = f"/o/{acme.slug}/projects/{project['id']}"
    html = client.get(page_url + "?pql=priority+%3D+urgent&sort=priority&dir=asc").get_data(
        as_text=True
    )
    assert 'name="pql" value="priority = urgent"' in html
    resp = client.post(
        page_url + "/views",
        data={"name": "Hot", "kind": "list", "pql": "priority = urgent", "sort": "priority"},
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    opened = client.get(resp.headers["Location"])
    html = opened.get_data(as_text=True)
    assert opened.status_code == 200
    assert 'aria-current="page"' in html and ">Hot<" in html
    assert "Urgent login bug" in html and "Low docs chore" not in html
    view_id = resp.headers["Location"].rsplit("view=", 1)[1]
    renamed = client.post(f"{page_url}/views/{view_id}/rename", data={"name": "Hotter"})
    assert renamed.status_code == 302
    assert ">Hotter<" in client.get(renamed.headers["Location"]).get_data(as_text=True)
    # A refused save shows the page with the message, not a 500.
    bad = client.post(page_url + "/views", data={"name": "Bad", "pql": "priority = = x"})
    assert bad.status_code == 400 and "The filter cannot be saved" in bad.get_data(as_text=True)
    dup = client.post(
        page_url + "/views", data={"name": "Hotter", "shared": "true", "columns": ["state"]}
    )
    html = dup.get_data(as_text=True)
    assert dup.status_code == 409 and "already have a view" in html
    # What was typed and ticked is there to correct, not an empty form.
    assert re.search(r'id="saved-view-name"[^>]*value="Hotter"', html)
    assert re.search(r'id="saved-view-shared" name="shared" value="true" checked', html)
    assert re.search(r'name="columns" value="state" checked', html)
    assert not re.search(r'name="columns" value="priority" checked', html)
    # A refused rename comes back as the view, its rename box open with the name
    # typed and the message: not in the save form, where Enter made a new view.
    client.post(page_url + "/views", data={"name": "Cold", "kind": "list"})
    refused = client.post(
        f"{page_url}/views/{view_id}/rename?view={view_id}", data={"name": "Cold"}
    )
    html = refused.get_data(as_text=True)
    assert refused.status_code == 409
    assert re.search(r'<details class="saved-view-manage" open>', html)
    assert re.search(r'id="saved-view-rename"[^>]*value="Cold"[^>]*aria-invalid="true"', html)
    assert 'id="saved-view-rename-error">' in html and 'id="saved-view-error"' not in html
    assert '<details class="saved-view-save">' in html  # closed
    assert "Urgent login bug" in html and "Low docs chore" not in html  # the view's list
    # Refused for its name, the page is still the list being saved: its filter, sort
    # and grouping, in the list and in the form's hidden fields for the retry.
    shown = {"name": " ", "kind": "list", "pql": "priority = urgent", "sort": "priority",
             "direction": "asc", "group_by": "assignee"}  # fmt: skip
    blank = client.post(page_url + "/views", data=shown)
    html = blank.get_data(as_text=True)
    assert blank.status_code == 400
    assert 'name="pql" value="priority = urgent"' in html
    assert 'name="direction" value="asc"' in html and 'name="group_by" value="assignee"' in html
    assert "Urgent login bug" in html and "Low docs chore" not in html
    deleted = client.post(f"{page_url}/views/{view_id}/delete")
    assert deleted.status_code == 302
    assert client.get(f"{page_url}?view={view_id}").status_code == 404


def test_agents_read_but_do_not_save(client, acme, project):
    agent = bearer(create_agent(client, acme, project_ids=[project["id"]])["token"])
    save(client, acme, project, shared=True)
    assert [v["name"] for v in client.get(views_url(acme, project), headers=agent).get_json()] == [
        "Urgent"
    ]
    assert_problem(save(client, acme, project, headers=agent, name="Mine"), 403)


def test_page_saves_the_columns_to_show(client, acme, project):
    login(client, acme.owner_email)
    page_url = f"/o/{acme.slug}/projects/{project['id']}"
    html = client.get(page_url).get_data(as_text=True)
    assert 'name="columns" value="kind" checked' in html
    resp = client.post(
        page_url + "/views", data={"name": "Narrow", "columns": ["title", "state", "due"]}
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "hide-col-kind" in html and "hide-col-priority" in html
    assert "hide-col-title" not in html and "hide-col-due" not in html
    listed = client.get(views_url(acme, project), headers=acme.headers).get_json()
    assert listed[0]["columns"] == ["title", "state", "due"]
    # Every column ticked is no choice at all: stored as null.
    every = ["title", "state", "priority", "kind", "assignee", "due", "created", "updated"]
    resp = client.post(page_url + "/views", data={"name": "All", "columns": every})
    assert resp.status_code == 302
    listed = client.get(views_url(acme, project), headers=acme.headers).get_json()
    assert {v["name"]: v["columns"] for v in listed}["All"] is None


def _tab_href(html: str, label: str) -> str:
    """The href of the project tab named ``label`` (List or Board), unescaped."""
    found = re.search(r'<a class="tab[^"]*"[^>]*href="([^"]*)">' + label + "</a>", html)
    assert found, label
    return found.group(1).replace("&amp;", "&")


def _current_view(html: str) -> str | None:
    found = re.search(
        r'class="tab saved-view-tab active" aria-current="page" href="[^"]*">([^<]*)', html
    )
    return found.group(1) if found else None


def test_list_and_board_tabs_keep_the_saved_view(client, acme, project):
    """Switching between List and Board on a saved view keeps the view (its tab
    current, its rename and delete controls) and its filter, both ways."""
    login(client, acme.owner_email)
    page_url = f"/o/{acme.slug}/projects/{project['id']}"
    view = save(client, acme, project, name="Hot", sort="priority").get_json()
    html = client.get(f"{page_url}?view={view['id']}").get_data(as_text=True)
    assert _current_view(html) == "Hot"
    board = client.get(_tab_href(html, "Board"))
    html = board.get_data(as_text=True)
    assert board.status_code == 200 and 'class="board' in html
    assert _current_view(html) == "Hot" and "Rename or delete “Hot”" in html
    assert "Urgent login bug" in html and "Low docs chore" not in html
    back = client.get(_tab_href(html, "List"))
    html = back.get_data(as_text=True)
    assert back.status_code == 200 and 'id="task-table"' in html
    assert _current_view(html) == "Hot" and "Rename or delete “Hot”" in html
    assert "Urgent login bug" in html and "Low docs chore" not in html
    # The list is the view as saved again: nothing to save.
    assert "Save changes" not in html
    # A board view shown as a list keeps it too; the view's own tab opens it as saved.
    board_view = save(client, acme, project, name="Plan", kind="board").get_json()
    html = client.get(f"{page_url}?view={board_view['id']}").get_data(as_text=True)
    listed = client.get(_tab_href(html, "List")).get_data(as_text=True)
    assert 'id="task-table"' in listed and _current_view(listed) == "Plan"
    assert f'href="{page_url}?view={board_view["id"]}">Plan<' in listed


def test_page_saves_changes_to_the_view_or_resets_it(client, acme, project):
    """A view shown with another filter, sort or grouping offers to save the changes
    to it (PATCH's model and service) and to go back to it as saved."""
    login(client, acme.owner_email)
    page_url = f"/o/{acme.slug}/projects/{project['id']}"
    view = save(client, acme, project, name="Hot", sort="priority").get_json()
    html = client.get(f"{page_url}?view={view['id']}").get_data(as_text=True)
    assert f'name="saved" value="{view["id"]}"' in html  # the filter form keeps it
    changed = client.get(
        f"{page_url}?saved={view['id']}&pql=priority+%3D+low&sort=priority&dir=asc&group=kind"
    )
    html = changed.get_data(as_text=True)
    assert changed.status_code == 200 and _current_view(html) == "Hot"
    assert "Low docs chore" in html and "Urgent login bug" not in html
    assert "Save changes to “Hot”" in html
    assert f'href="{page_url}?view={view["id"]}">Reset to the saved view<' in html
    shown = {"kind": "list", "pql": "priority = low", "sort": "priority",
             "direction": "asc", "group_by": "kind"}  # fmt: skip
    resp = client.post(
        f"{page_url}/views/{view['id']}/update",
        data=shown,
    )
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"?view={view['id']}")
    stored = client.get(views_url(acme, project, f"/{view['id']}"), headers=acme.headers)
    stored = stored.get_json()
    assert (stored["name"], stored["pql"], stored["direction"], stored["group_by"]) == (
        "Hot",
        "priority = low",
        "asc",
        "kind",
    )
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Low docs chore" in html and "Save changes" not in html
    # A form sends no null: a blank filter and no grouping clear them.
    resp = client.post(
        f"{page_url}/views/{view['id']}/update",
        data={"kind": "board", "pql": "", "sort": "priority", "direction": "asc"},
    )
    assert resp.status_code == 302
    stored = client.get(views_url(acme, project, f"/{view['id']}"), headers=acme.headers)
    assert stored.get_json()["pql"] == "" and stored.get_json()["group_by"] is None
    assert stored.get_json()["kind"] == "board"
    # Refused, the page is the view as it was shown, the message beside Save changes.
    bad = client.post(
        f"{page_url}/views/{view['id']}/update",
        data={"kind": "list", "pql": "priority = = low", "sort": "title", "direction": "asc"},
    )
    html = bad.get_data(as_text=True)
    assert bad.status_code == 400 and 'id="saved-view-update-error"' in html
    assert "The filter cannot be saved" in html and _current_view(html) == "Hot"
    stored = client.get(views_url(acme, project, f"/{view['id']}"), headers=acme.headers)
    assert stored.get_json()["pql"] == ""
