"""The project's task list and board as a person sees them: search, PQL filter, sort,
paging that keeps the query, bulk edit (all or nothing, each task's own history), the
board's columns, and who may open or use each of them."""

from __future__ import annotations

import re
import uuid
from html import unescape

import pytest
from sqlalchemy import select

from tests.factories import (
    add_person,
    create_agent,
    create_project,
    login,
    member_id,
    new_task,
    project_states,
    setup_project,
    state_in,
)
from workspace.core.models import Task, TaskActivity
from workspace.extensions import db

FORBIDDEN = "You need the member role in this project to change its tasks."


def _page(client, org, project, **params):
    return client.get(f"/o/{org.slug}/projects/{project['id']}", query_string=params)


def _keys(resp) -> list[str]:
    """The task keys of the list's rows, in the order shown."""
    return re.findall(
        r'<tr id="task-[^"]+" data-task-key="([A-Z]+-\d+)"', resp.get_data(as_text=True)
    )


def _html(resp) -> str:
    return unescape(resp.get_data(as_text=True))


def _activity(app, task_id: str, field: str) -> list[TaskActivity]:
    with app.app_context():
        return list(
            db.session.scalars(
                select(TaskActivity).where(
                    TaskActivity.task_id == uuid.UUID(task_id), TaskActivity.field == field
                )
            )
        )


def _task(app, task_id: str) -> Task:
    with app.app_context():
        task = db.session.get(Task, uuid.UUID(task_id))
        db.session.expunge(task)
        return task


@pytest.fixture
def sample(app, client, acme):
    """Four tasks that differ in every sortable column, signed in as the owner."""
    project, states = setup_project(client, acme)
    amy = add_person(app, acme.org_id, "amy@acme.test")
    zed = add_person(app, acme.org_id, "zed@acme.test")
    order = sorted(states.values(), key=lambda s: s["position"])
    by_cat = {s["category"]: s for s in reversed(order)}
    tasks = [
        new_task(client, acme, project, title="banana", priority="low", kind="bug",
                 assignee_id=str(zed.owner_id), due_date="2026-03-01",
                 state_id=by_cat["started"]["id"]),
        new_task(client, acme, project, title="Apple", priority="urgent", kind="task",
                 state_id=by_cat["backlog"]["id"]),
        new_task(client, acme, project, title="cherry", priority="none", kind="epic",
                 assignee_id=str(amy.owner_id), due_date="2026-01-01",
                 state_id=by_cat["completed"]["id"]),
        new_task(client, acme, project, title="date", priority="high", kind="feature",
                 assignee_id=str(amy.owner_id), due_date="2026-02-01",
                 state_id=by_cat["unstarted"]["id"]),
    ]  # fmt: skip
    for index in (1, 0):  # updated: WEB-2, then WEB-1 most recently
        resp = client.patch(
            acme.url(f"/tasks/{tasks[index]['id']}"),
            json={"description": "x"},
            headers=acme.headers,
        )
        assert resp.status_code == 200
    login(client, acme.owner_email)
    position = {s["id"]: s["position"] for s in order}
    return project, tasks, position


ASCENDING = {
    "key": ["WEB-1", "WEB-2", "WEB-3", "WEB-4"],
    "title": ["WEB-2", "WEB-1", "WEB-3", "WEB-4"],
    "priority": ["WEB-2", "WEB-4", "WEB-1", "WEB-3"],  # urgency, not the alphabet
    "kind": ["WEB-1", "WEB-3", "WEB-4", "WEB-2"],
    "assignee": ["WEB-3", "WEB-4", "WEB-1", "WEB-2"],  # Amy, Amy, Zed, unassigned last
    "due": ["WEB-3", "WEB-4", "WEB-1", "WEB-2"],  # no due date last
    "created": ["WEB-1", "WEB-2", "WEB-3", "WEB-4"],
    "updated": ["WEB-3", "WEB-4", "WEB-2", "WEB-1"],
}
DESCENDING = {
    **{k: list(reversed(v)) for k, v in ASCENDING.items()},
    "assignee": ["WEB-1", "WEB-4", "WEB-3", "WEB-2"],  # ties newest key first; empty last
    "due": ["WEB-1", "WEB-4", "WEB-3", "WEB-2"],
}


@pytest.mark.parametrize("sort", [*ASCENDING, "state"])
def test_each_column_sorts_both_ways(client, acme, sample, sort):
    project, tasks, position = sample
    if sort == "state":
        by_state = sorted(zip(tasks, ("WEB-1", "WEB-2", "WEB-3", "WEB-4"), strict=True),
                          key=lambda pair: position[pair[0]["state_id"]])  # fmt: skip
        up = [key for _, key in by_state]
        down = list(reversed(up))
    else:
        up, down = ASCENDING[sort], DESCENDING[sort]
    assert _keys(_page(client, acme, project, sort=sort, dir="asc")) == up
    assert _keys(_page(client, acme, project, sort=sort, dir="desc")) == down


def test_default_order_is_newest_first_and_bad_sort_falls_back(client, acme, sample):
    project, _, _ = sample
    assert _keys(_page(client, acme, project)) == ["WEB-4", "WEB-3", "WEB-2", "WEB-1"]
    resp = _page(client, acme, project, sort="colour", dir="sideways", offset="-3")
    assert resp.status_code == 200
    assert _keys(resp) == ["WEB-4", "WEB-3", "WEB-2", "WEB-1"]


def test_search_is_a_case_insensitive_title_substring(client, acme):
    project, _ = setup_project(client, acme)
    for title in ("Fix the LOGIN page", "login flow", "Billing", "100% done_ok"):
        new_task(client, acme, project, title=title)
    login(client, acme.owner_email)
    assert _keys(_page(client, acme, project, q="Login")) == ["WEB-2", "WEB-1"]
    assert _keys(_page(client, acme, project, q="%")) == ["WEB-4"]  # a plain character
    assert _keys(_page(client, acme, project, q="_ok")) == ["WEB-4"]
    empty = _page(client, acme, project, q="nothing like it")
    assert empty.status_code == 200 and _keys(empty) == []
    assert "No tasks match" in _html(empty) and "Clear the filter" in _html(empty)
    too_long = _page(client, acme, project, q="x" * 201)
    assert too_long.status_code == 400
    assert 'id="task-search-error"' in _html(too_long)


def test_pql_filters_the_list_and_combines_with_search_and_tab(client, acme, sample):
    project, _, _ = sample
    assert _keys(_page(client, acme, project, pql="priority IN (urgent, high)")) == [
        "WEB-4",
        "WEB-2",
    ]
    assert _keys(_page(client, acme, project, pql="assignee IS EMPTY OR kind = bug", q="an")) == [
        "WEB-1"
    ]
    assert _keys(
        _page(client, acme, project, pql='assignee = "amy@acme.test"', category="completed")
    ) == ["WEB-3"]


@pytest.mark.parametrize(
    ("pql", "message"),
    [
        ("priority = asap", "PQL error at line 1, column 12: priority has no value 'asap'"),
        ("priority =", "PQL error at line 1, column 11: the filter ends too early"),
        ("colour = red", "PQL error at line 1, column 1: unknown field 'colour'"),
        ("status = Doing", "PQL error at line 1, column 10: no status named 'Doing'"),
    ],
)
def test_a_bad_pql_filter_is_a_400_with_its_position_next_to_the_box(
    client, acme, sample, pql, message
):
    project, _, _ = sample
    for view in ("list", "board"):
        resp = _page(client, acme, project, pql=pql, view=view)
        assert resp.status_code == 400
        html = _html(resp)
        error = re.search(
            r'<p class="field-error" id="task-pql-error" role="alert">([^<]*)</p>', html
        )
        assert error and error.group(1).startswith(message), html[:0]
        assert 'aria-invalid="true"' in html and f'value="{pql}"' in html
        assert _keys(resp) == []


def test_the_json_list_takes_the_same_search_filter_and_sort(client, acme, sample):
    """One language everywhere: the API answers what the page shows for the same query."""
    project, _, _ = sample
    url = acme.url(f"/projects/{project['id']}/tasks")

    def keys(**params):
        resp = client.get(url, query_string=params, headers=acme.headers)
        assert resp.status_code == 200, resp.get_json()
        return [f"WEB-{t['sequence']}" for t in resp.get_json()["items"]]

    for params in (
        {"sort": "priority", "dir": "asc"},
        {"sort": "due", "dir": "desc"},
        {"pql": "priority IN (urgent, high)"},
        {"pql": "assignee IS EMPTY OR kind = bug", "q": "an"},
    ):
        assert keys(**params) == _keys(_page(client, acme, project, **params)), params
    bad = client.get(url, query_string={"pql": "priority = asap"}, headers=acme.headers)
    assert bad.status_code == 422
    (error,) = bad.get_json()["errors"]
    assert error["field"] == "pql" and "line 1, column 12" in error["message"]
    for params in ({"sort": "colour"}, {"dir": "up"}, {"q": "x" * 201}):
        assert client.get(url, query_string=params, headers=acme.headers).status_code == 400


def test_more_button_and_tabs_keep_search_filter_and_sort(client, acme):
    project, _ = setup_project(client, acme)
    for n in range(55):
        new_task(client, acme, project, title=f"match {n:02d}", priority="high")
    new_task(client, acme, project, title="match but low", priority="low")
    new_task(client, acme, project, title="other", priority="high")
    login(client, acme.owner_email)
    query = {"q": "MATCH", "pql": "priority = high", "sort": "title", "dir": "asc"}
    first = _page(client, acme, project, **query)
    assert [k for k in _keys(first)][:2] == ["WEB-1", "WEB-2"] and len(_keys(first)) == 50
    html = _html(first)
    more = re.search(r'<a class="btn btn-ghost btn-sm" href="([^"]+)"', html).group(1)
    assert "Show more (5 left)" in html
    for part in ("q=MATCH", "pql=priority+%3D+high", "sort=title", "dir=asc", "offset=50"):
        assert part in more
    rest = client.get(more, headers={"HX-Request": "true"})
    assert rest.status_code == 200 and "<html" not in rest.get_data(as_text=True)
    assert _keys(rest) == [f"WEB-{n}" for n in range(51, 56)]
    tab = re.search(r'href="([^"]*category=started[^"]*)"', html).group(1)
    assert "q=MATCH" in tab and "sort=title" in tab and "offset" not in tab
    assert _keys(client.get(tab)) == []
    assert "No tasks match" in _html(client.get(tab))


def _bulk(client, org, project, ids, **fields):
    return client.post(
        f"/o/{org.slug}/projects/{project['id']}/tasks/bulk",
        data={"task_ids": [str(i) for i in ids], **fields},
    )


def test_bulk_edit_changes_each_task_with_its_own_activity_row(app, client, acme):
    project, states = setup_project(client, acme)
    member = add_person(app, acme.org_id, "mia@acme.test")
    client.post(
        acme.url(f"/projects/{project['id']}/members"),
        json={"account_id": str(member.owner_id), "role": "member"},
        headers=acme.headers,
    )
    agent = create_agent(client, acme, project_ids=[project["id"]])
    picked = [new_task(client, acme, project, title=f"T{n}") for n in range(3)]
    untouched = new_task(client, acme, project, title="Leave me")
    done = next(s for s in states.values() if s["category"] == "completed")
    login(client, member.owner_email)
    resp = _bulk(client, acme, project, [t["id"] for t in picked], state_id=done["id"],
                 priority="urgent", assignee_id=agent["id"], q="T", sort="title")  # fmt: skip
    assert resp.status_code == 302
    assert "q=T" in resp.headers["Location"] and "sort=title" in resp.headers["Location"]
    for t in picked:
        task = _task(app, t["id"])
        assert (task.state_id, task.priority) == (uuid.UUID(done["id"]), "urgent")
        assert str(task.assignee_id) == agent["id"]
        for field in ("state", "priority", "assignee_id"):
            rows = _activity(app, t["id"], field)
            assert len(rows) == 1 and rows[0].actor_id == member.owner_id
    assert _activity(app, untouched["id"], "state") == []
    assert "Updated 3 tasks." in _html(client.get(resp.headers["Location"]))
    # Unassign: "none" clears the assignee.
    assert _bulk(client, acme, project, [picked[0]["id"]], assignee_id="none").status_code == 302
    assert _task(app, picked[0]["id"]).assignee_id is None


def test_bulk_edit_is_all_or_nothing(app, client, acme, globex):
    project, states = setup_project(client, acme)
    other_project = create_project(client, acme, name="Ops", identifier="OPS")
    mine = [new_task(client, acme, project, title=f"T{n}") for n in range(2)]
    elsewhere = new_task(client, acme, other_project, title="Ops task")
    g_project = create_project(client, globex, name="G", identifier="GLO")
    foreign = new_task(client, globex, g_project, title="Theirs")
    done = next(s for s in states.values() if s["category"] == "completed")
    login(client, acme.owner_email)
    for stranger in (foreign["id"], elsewhere["id"], str(uuid.uuid4())):
        resp = _bulk(client, acme, project, [mine[0]["id"], stranger, mine[1]["id"]],
                     state_id=done["id"])  # fmt: skip
        assert resp.status_code == 404
        assert "nothing was changed" in _html(resp) and 'id="bulk-error"' in _html(resp)
    other_done = next(
        s for s in project_states(client, acme, other_project["id"]).values()
        if s["category"] == "completed"
    )  # fmt: skip
    refused = [
        (_bulk(client, acme, project, [t["id"] for t in mine], state_id=other_done["id"]), 400),
        (_bulk(client, acme, project, [t["id"] for t in mine], priority="asap"), 400),
        (_bulk(client, acme, project, [t["id"] for t in mine]), 400),
        (_bulk(client, acme, project, [], priority="high"), 400),
        (_bulk(client, acme, project, ["not-an-id"], priority="high"), 400),
        (_bulk(client, acme, project, [mine[0]["id"]], assignee_id=str(globex.owner_id)), 400),
    ]
    for resp, status in refused:
        assert resp.status_code == status, _html(resp)[:300]
        assert 'id="bulk-error"' in _html(resp)
    assert "Choose a state, an assignee or a priority to change." in _html(refused[2][0])
    for t in (*mine, elsewhere):
        assert _activity(app, t["id"], "state") == [] and _activity(app, t["id"], "priority") == []
    with app.app_context():
        assert db.session.get(Task, uuid.UUID(foreign["id"])).state_category != "completed"


def test_bulk_edit_caps_the_selection(app, client, acme):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project)
    login(client, acme.owner_email)
    ids = [task["id"]] + [str(uuid.uuid4()) for _ in range(200)]
    resp = _bulk(client, acme, project, ids, priority="high")
    assert resp.status_code == 400
    assert "at most 200" in _html(resp)
    assert _task(app, task["id"]).priority == "none"


COLUMN = re.compile(
    r'data-column="([^"]+)">\s*<header[^>]*>\s*<h2[^>]*>[^<]*</h2>\s*'
    r'<span class="board-count" data-count>(\d+)</span>'
)


def test_the_board_has_a_column_per_state_with_counts_and_a_cap(app, client, acme):
    project, states = setup_project(client, acme)
    backlog = next(s for s in states.values() if s["category"] == "backlog")
    started = next(s for s in states.values() if s["category"] == "started")
    for n in range(53):
        new_task(client, acme, project, title=f"Card {n}", state_id=backlog["id"])
    new_task(client, acme, project, title="Moving", state_id=started["id"], priority="urgent")
    login(client, acme.owner_email)
    for resp in (
        _page(client, acme, project, view="board"),
        client.get(f"/o/{acme.slug}/projects/{project['id']}/board"),
    ):
        assert resp.status_code == 200
        html = _html(resp)
        columns = re.findall(COLUMN, html)
        ordered = [s["name"] for s in sorted(states.values(), key=lambda s: s["position"])]
        assert [name for name, _ in columns] == ordered
        counts = dict(columns)
        assert counts[backlog["name"]] == "53" and counts[started["name"]] == "1"
        assert html.count('class="board-card"') == 51  # 50 of 53, and 1
        assert "+3 more" in html
        more = re.search(r'href="([^"]+)">\+3 more', html).group(1)
        assert f"status+%3D+%22{backlog['name']}%22".replace(" ", "+") in more
        assert "view" not in more
        in_full = client.get(more)
        assert len(_keys(in_full)) == 50 and "Show more (3 left)" in _html(in_full)
        assert 'aria-label="Select' not in html  # no bulk boxes on the board
    filtered = _page(client, acme, project, view="board", q="moving")
    assert _html(filtered).count('class="board-card"') == 1
    assert (
        _page(client, acme, project, view="board", pql="priority = urgent", q="card").status_code
        == 200
    )
    empty = _html(_page(client, acme, project, view="board", pql="priority = low"))
    assert "No tasks match" in empty


def test_a_board_move_writes_the_activity_and_answers_the_board(app, client, acme):
    project, states = setup_project(client, acme)
    done = next(s for s in states.values() if s["category"] == "completed")
    task = new_task(client, acme, project, title="Drag me")
    login(client, acme.owner_email)
    url = f"/o/{acme.slug}/tasks/{task['id']}/state?view=board&q=drag"
    resp = client.post(url, data={"state_id": done["id"]}, headers={"HX-Request": "true"})
    assert resp.status_code == 200
    html = _html(resp)
    assert html.lstrip().startswith('<div id="board"') and "<html" not in html
    assert re.search(rf'data-column="{done["name"]}">.*?data-count>1<', html, re.S)
    moves = _activity(app, task["id"], "state")
    assert len(moves) == 1 and moves[0].new_category == "completed"
    assert moves[0].actor_id == acme.owner_id
    # Without JS the keyboard form redirects back to the same board.
    backlog = next(s for s in states.values() if s["category"] == "backlog")
    plain = client.post(url, data={"state_id": backlog["id"]})
    assert plain.status_code == 302
    assert "view=board" in plain.headers["Location"] and "q=drag" in plain.headers["Location"]


def test_task_keys_link_to_the_task_page_everywhere(app, client, acme):
    project, _ = setup_project(client, acme)
    new_task(client, acme, project, title="Mine", assignee_id=str(acme.owner_id))
    login(client, acme.owner_email)
    link = f'href="/o/{acme.slug}/tasks/WEB-1"'
    assert link in _html(_page(client, acme, project))
    assert link in _html(_page(client, acme, project, view="board"))
    assert link in _html(client.get(f"/o/{acme.slug}/"))
    html = _html(_page(client, acme, project))
    for tab in ("List", "Board", "Settings", "Members"):
        assert re.search(rf'<a class="tab[^"]*"[^>]*>{tab}</a>', html), tab
    assert f'href="/o/{acme.slug}/projects/{project["id"]}/settings"' in html
    assert 'hx-trigger="ws:commit"' in html and 'hx-trigger="change"' not in html


# -- who may do what -------------------------------------------------------------------

ROLES = ["viewer", "commenter", "member", "admin", "agent"]


@pytest.fixture
def cast(app, client, acme):
    """A project with one task and a caller per role (admin: an org admin)."""
    project, states = setup_project(client, acme)
    task = new_task(client, acme, project, title="Shared")
    people = {}
    for role in ("viewer", "commenter", "member"):
        person = add_person(app, acme.org_id, f"{role}@acme.test")
        resp = client.post(
            acme.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(person.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code == 201
        people[role] = person
    people["admin"] = add_person(app, acme.org_id, "boss@acme.test", role="admin")
    agent = create_agent(client, acme, project_ids=[project["id"]])
    done = next(s for s in states.values() if s["category"] == "completed")
    return project, task, done, people, agent


def _routes(acme, project, task, done):
    base = f"/o/{acme.slug}/projects/{project['id']}"
    return {
        "list": ("GET", base, None),
        "board": ("GET", f"{base}/board", None),
        "board view": ("GET", f"{base}?view=board", None),
        "bulk": ("POST", f"{base}/tasks/bulk", {"task_ids": [task["id"]], "priority": "high"}),
        "board move": (
            "POST",
            f"/o/{acme.slug}/tasks/{task['id']}/state?view=board",
            {"state_id": done["id"]},
        ),
    }


@pytest.mark.parametrize("role", ROLES)
def test_permission_table(app, client, acme, globex, cast, role):
    project, task, done, people, agent = cast
    routes = _routes(acme, project, task, done)
    if role == "agent":
        # HTML pages take a browser session only: the agent's token opens none of them.
        for method, path, data in routes.values():
            resp = client.open(
                path,
                method=method,
                data=data,
                headers={"Authorization": f"Bearer {agent['token']}"},
            )
            assert resp.status_code == 302 and "/signin" in resp.headers["Location"], path
        # Its JSON API answers it as the project member it is.
        api = client.get(
            acme.url(f"/projects/{project['id']}/tasks"),
            headers={"Authorization": f"Bearer {agent['token']}"},
        )
        assert api.status_code == 200
        assert _task(app, task["id"]).priority == "none"
        return
    login(client, people[role].owner_email)
    writes = role in ("member", "admin")
    for name, (method, path, data) in routes.items():
        resp = client.open(path, method=method, data=data)
        if method == "GET":
            assert resp.status_code == 200, name
            has_bulk = 'id="bulk-form"' in resp.get_data(as_text=True)
            assert has_bulk == (writes and name == "list"), name
            assert ("data-board-move" in resp.get_data(as_text=True)) == (writes and name != "list")
        elif writes:
            assert resp.status_code == 302, (name, resp.get_data(as_text=True)[:300])
        else:
            assert resp.status_code == 403, name
            assert FORBIDDEN in _html(resp)
    task_now = _task(app, task["id"])
    assert (task_now.priority == "high") == writes
    assert (task_now.state_category == "completed") == writes
    # Another org's member gets a 404 on every route.
    login(client, globex.owner_email)
    for method, path, data in routes.values():
        assert client.open(path, method=method, data=data).status_code == 404, path


def test_the_archived_tab_is_where_archived_tasks_are_found_again(client, acme):
    """Every other tab, search and count leaves archived tasks out; before this tab the
    only way back to one (and its Restore button) was typing its key into the URL."""
    project, states = setup_project(client, acme)
    login(client, acme.owner_email)
    live = new_task(client, acme, project, title="Still here")
    shelved = new_task(client, acme, project, title="Shelved idea",
                       state_id=state_in(states, "started"))  # fmt: skip
    empty = _html(_page(client, acme, project, category="archived"))
    assert "No archived tasks" in empty
    resp = client.patch(acme.url(f"/tasks/{shelved['id']}"), json={"archived": True},
                        headers=acme.headers)  # fmt: skip
    assert resp.status_code == 200
    assert _keys(_page(client, acme, project)) == [live["key"]]
    html = _html(_page(client, acme, project))
    tab = re.search(r'href="([^"]*category=archived[^"]*)">Archived</a>', html)
    assert tab, "the list offers an Archived tab"
    assert _keys(client.get(unescape(tab.group(1)))) == [shelved["key"]]
    board = _html(_page(client, acme, project, category="archived", view="board"))
    assert shelved["key"] in board and live["key"] not in board
    # The state it holds cannot be deleted; the hint says where that task is.
    settings = _html(client.get(f"/o/{acme.slug}/projects/{project['id']}/settings"))
    assert f"/o/{acme.slug}/projects/{project['id']}?category=archived" in settings


def test_a_deactivated_assignee_is_named_on_the_list_and_the_board(app, client, acme):
    """Their tasks said "Unassigned" (board) and "—" (list): the names came from the
    active members, the ones a task may be given."""
    project, _ = setup_project(client, acme)
    mia = add_person(app, acme.org_id, "mia@acme.test")  # named "Mia"
    new_task(client, acme, project, title="Given to Mia", assignee_id=str(mia.owner_id))
    member = member_id(app, acme.org_id, "mia@acme.test")
    gone = client.patch(
        acme.url(f"/members/{member}"), json={"active": False}, headers=acme.headers
    )
    assert gone.status_code == 200, gone.get_json()
    login(client, acme.owner_email)
    for view in ("list", "board"):
        html = _html(_page(client, acme, project, view=view))
        assert 'Mia <span class="muted">(deactivated)</span>' in html, view
    # Nobody gives a task to someone deactivated: the pickers offer active members.
    assert '<option value="' + str(mia.owner_id) not in _html(_page(client, acme, project))
