"""The project's task list grouped by state, priority, kind or assignee
(docs/saved_views.md#grouping): the groups' order, a header row per group with its
count over every page, paging that goes on in a group without a second header, the
JSON list in the same order, a saved view that opens grouped, and a wrong ``group``
as a 400."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.factories import add_person, assert_problem, login, new_task, setup_project
from workspace.tracker import listing

HEAD = re.compile(
    r'<tr class="group-row"><th scope="colgroup" colspan="\d+">(.+?) '
    r'<span class="muted">· ([\d,]+) tasks?</span></th></tr>'
    r'|<tr id="task-[^"]+" data-task-key="([A-Z]+-\d+)"'
)


def _page(client, org, project, headers=None, **params):
    return client.get(
        f"/o/{org.slug}/projects/{project['id']}", query_string=params, headers=headers
    )


def _shown(resp) -> list[str]:
    """The list's rows in order: a header as ``# label (count)``, a task as its key."""
    out = []
    for label, count, key in HEAD.findall(unescape(resp.get_data(as_text=True))):
        out.append(key or f"# {label} ({count})")
    return out


@pytest.fixture
def sample(app, client, acme):
    """Five tasks across states, priorities, kinds and two people, signed in as the
    owner; the states by category (the workflow lists backlog first)."""
    project, states = setup_project(client, acme)
    amy = add_person(app, acme.org_id, "amy@acme.test")
    zed = add_person(app, acme.org_id, "zed@acme.test")
    by_cat = {s["category"]: s for s in sorted(states.values(), key=lambda s: -s["position"])}
    started, backlog = by_cat["started"]["id"], by_cat["backlog"]["id"]
    new_task(
        client,
        acme,
        project,
        title="one",
        priority="low",
        kind="bug",
        assignee_id=str(zed.owner_id),
        state_id=started,
    )
    new_task(client, acme, project, title="two", priority="urgent", kind="task", state_id=backlog)
    new_task(
        client,
        acme,
        project,
        title="three",
        priority="none",
        kind="epic",
        assignee_id=str(amy.owner_id),
        state_id=started,
    )
    new_task(
        client,
        acme,
        project,
        title="four",
        priority="urgent",
        kind="bug",
        assignee_id=str(amy.owner_id),
        state_id=backlog,
    )
    new_task(client, acme, project, title="five", priority="low", kind="task",
             state_id=started)  # fmt: skip
    login(client, acme.owner_email)
    return project, by_cat


def test_grouped_by_state_in_workflow_order_then_the_sort(client, acme, sample):
    project, by_cat = sample
    backlog, started = by_cat["backlog"]["name"], by_cat["started"]["name"]
    resp = _page(client, acme, project, group="state", sort="created", dir="asc")
    assert resp.status_code == 200
    assert _shown(resp) == [
        f"# {backlog} (2)", "WEB-2", "WEB-4",
        f"# {started} (3)", "WEB-1", "WEB-3", "WEB-5",
    ]  # fmt: skip
    # The direction turns the rows within a group, never the groups' order.
    assert _shown(_page(client, acme, project, group="state", sort="created")) == [
        f"# {backlog} (2)", "WEB-4", "WEB-2",
        f"# {started} (3)", "WEB-5", "WEB-3", "WEB-1",
    ]  # fmt: skip
    # Sorted by state too: both joins of the states hold.
    assert _shown(_page(client, acme, project, group="state", sort="state"))[0] == (
        f"# {backlog} (2)"
    )


@pytest.mark.parametrize(
    ("group", "shown"),
    [
        ("priority", ["# Urgent (2)", "WEB-2", "WEB-4", "# Low (2)", "WEB-1", "WEB-5",
                      "# No priority (1)", "WEB-3"]),
        ("kind", ["# Task (2)", "WEB-2", "WEB-5", "# Bug (2)", "WEB-1", "WEB-4",
                  "# Epic (1)", "WEB-3"]),
        ("assignee", ["# Amy (2)", "WEB-3", "WEB-4", "# Zed (1)", "WEB-1",
                      "# Unassigned (2)", "WEB-2", "WEB-5"]),
    ],
)  # fmt: skip
def test_priority_kind_and_assignee_groups(client, acme, sample, group, shown):
    project, _ = sample
    assert _shown(_page(client, acme, project, group=group, sort="key", dir="asc")) == shown


def test_counts_are_the_whole_filtered_list(client, acme, sample, monkeypatch):
    """A header counts its group's tasks on every page, within the search and filter."""
    project, _ = sample
    filtered = _page(client, acme, project, group="priority", pql="kind != epic", q="o")
    assert _shown(filtered) == ["# Urgent (2)", "WEB-4", "WEB-2", "# Low (1)", "WEB-1"]
    monkeypatch.setattr(listing, "PAGE_SIZE", 3)
    resp = _page(client, acme, project, group="priority", sort="key", dir="asc")
    assert _shown(resp) == ["# Urgent (2)", "WEB-2", "WEB-4", "# Low (2)", "WEB-1"]


def test_more_goes_on_in_a_group_without_a_second_header(client, acme, sample, monkeypatch):
    project, _ = sample
    monkeypatch.setattr(listing, "PAGE_SIZE", 3)
    query = {"group": "assignee", "sort": "key", "dir": "asc"}
    first = _page(client, acme, project, **query)
    assert _shown(first) == ["# Amy (2)", "WEB-3", "WEB-4", "# Zed (1)", "WEB-1"]
    html = unescape(first.get_data(as_text=True))
    more = re.search(r'<a class="btn btn-ghost btn-sm" href="([^"]+)"', html).group(1)
    assert "group=assignee" in more and "offset=3" in more
    rest = client.get(more, headers={"HX-Request": "true"})
    assert rest.status_code == 200 and "<html" not in rest.get_data(as_text=True)
    # The next page starts a new group: its header comes first.
    assert _shown(rest) == ["# Unassigned (2)", "WEB-2", "WEB-5"]
    # A page that starts mid-group (Amy's second task) has no header before it.
    monkeypatch.setattr(listing, "PAGE_SIZE", 1)
    mid = _page(client, acme, project, headers={"HX-Request": "true"}, offset=1, **query)
    assert _shown(mid) == ["WEB-4"]
    nxt = _page(client, acme, project, headers={"HX-Request": "true"}, offset=2, **query)
    assert _shown(nxt) == ["# Zed (1)", "WEB-1"]


def test_the_bulk_bar_and_tabs_keep_the_grouping(client, acme, sample):
    project, _ = sample
    html = unescape(_page(client, acme, project, group="kind").get_data(as_text=True))
    assert '<input type="hidden" name="group" value="kind">' in html  # the bulk bar
    tab = re.search(r'href="([^"]*category=started[^"]*)"', html).group(1)
    assert "group=kind" in tab
    assert re.search(r'<option value="kind" selected>Kind</option>', html)
    # "No grouping" is the select's blank option: the plain list.
    plain = _page(client, acme, project, group="", sort="key", dir="asc")
    assert plain.status_code == 200 and _shown(plain)[0] == "WEB-1"
    assert '<option value="" selected>No grouping</option>' in plain.get_data(as_text=True)


def test_a_wrong_group_is_a_400_beside_the_select(client, acme, sample):
    project, _ = sample
    resp = _page(client, acme, project, group="mood")
    html = unescape(resp.get_data(as_text=True))
    assert resp.status_code == 400
    assert 'id="task-group-error"' in html
    assert "Group by state, priority, kind or assignee." in html
    assert 'aria-describedby="task-group-error"' in html
    assert "The filter cannot run" in html and _shown(resp) == []
    # Nothing was counted: no "0 tasks match" above the refusal.
    assert re.search(r'<p class="task-count[^>]* hidden>', html)


def test_the_json_list_groups_like_the_page(client, acme, sample):
    project, _ = sample
    url = acme.url(f"/projects/{project['id']}/tasks")
    for group in ("state", "priority", "kind", "assignee"):
        params = {"group": group, "sort": "title", "dir": "desc"}
        resp = client.get(url, query_string=params, headers=acme.headers)
        assert resp.status_code == 200, resp.get_json()
        keys = [f"WEB-{t['sequence']}" for t in resp.get_json()["items"]]
        page = [k for k in _shown(_page(client, acme, project, **params)) if k[0] != "#"]
        assert keys == page, group
    # Paged: the same order, a page at a time.
    resp = client.get(
        url, query_string={"group": "assignee", "sort": "key", "dir": "asc", "limit": 2,
                           "offset": 2}, headers=acme.headers,
    )  # fmt: skip
    assert [t["sequence"] for t in resp.get_json()["items"]] == [1, 2]
    assert_problem(client.get(url, query_string={"group": "mood"}, headers=acme.headers), 400)
    # In the OpenAPI document like sort, so the contract test (tests/api) sends it.
    doc = client.get("/api/v1/openapi.json").get_json()
    (op,) = [
        ops["get"]
        for path, ops in doc["paths"].items()
        if path.endswith("/projects/{project_id}/tasks")
    ]
    (param,) = [p for p in op["parameters"] if p["name"] == "group"]
    assert param["in"] == "query" and not param["required"]
    assert "assignee" in str(param["schema"]) and "group" in op["summary"]


def test_a_saved_view_with_grouping_opens_grouped(client, acme, sample):
    project, _ = sample
    page_url = f"/o/{acme.slug}/projects/{project['id']}"
    html = _page(client, acme, project, group="priority").get_data(as_text=True)
    assert '<input type="hidden" name="group_by" value="priority">' in html
    resp = client.post(
        page_url + "/views",
        data={"name": "By priority", "sort": "key", "direction": "asc", "group_by": "priority"},
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    opened = client.get(resp.headers["Location"])
    assert opened.status_code == 200
    assert _shown(opened)[:3] == ["# Urgent (2)", "WEB-2", "WEB-4"]
    assert '<option value="priority" selected>' in opened.get_data(as_text=True)
    views = client.get(acme.url(f"/projects/{project['id']}/views"), headers=acme.headers)
    assert views.get_json()[0]["group_by"] == "priority"
    # One saved through the API opens grouped too; an ungrouped view opens ungrouped.
    by_api = client.post(
        acme.url(f"/projects/{project['id']}/views"),
        json={"name": "People", "group_by": "assignee", "sort": "key", "direction": "asc"},
        headers=acme.headers,
    ).get_json()
    assert _shown(_page(client, acme, project, view=by_api["id"]))[0] == "# Amy (2)"
    plain = client.post(
        acme.url(f"/projects/{project['id']}/views"), json={"name": "Plain"}, headers=acme.headers
    ).get_json()
    assert _shown(_page(client, acme, project, view=plain["id"], group="kind"))[0] == "WEB-5"
