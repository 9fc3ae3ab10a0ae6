"""The project settings page and its JSON API (docs/projects.md): renaming, archiving,
states (add, rename, reorder, recategorize through a confirmation, delete), cycles and
modules; each change's event and actor; bad input; the permission table."""

from __future__ import annotations

import re
import uuid
from html import unescape

import pytest
from sqlalchemy import select

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    create_project,
    login,
    new_task,
    project_states,
    rollups_consistent,
    setup_project,
)
from workspace.core.models import Project, Task, TaskActivity
from workspace.extensions import db

WORKFLOW_403 = "Only a project admin can change states, cycles and modules."
EDIT_403 = "Only a project admin can change this project."


def _page(org, project, path=""):
    return f"/o/{org.slug}/projects/{project['id']}/settings{path}"


def _events(client, org, kind):
    resp = client.get(org.url("/events"), query_string={"kind": kind}, headers=org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _tasks(app, **where):
    with app.app_context():
        rows = db.session.scalars(select(Task).filter_by(**where)).all()
        return {t.title: (t.state_category, t.completed_at) for t in rows}


def _state_rows(app, task_ids):
    with app.app_context():
        return db.session.scalars(
            select(TaskActivity).where(
                TaskActivity.field == "state",
                TaskActivity.task_id.in_([uuid.UUID(t) for t in task_ids]),
            )
        ).all()


@pytest.fixture
def owner(client, acme):
    """The owner's browser session and a fresh project with its states by name."""
    login(client, acme.owner_email)
    project, states = setup_project(client, acme)
    return project, states


# -- the page -----------------------------------------------------------------------------


def test_page_lists_states_cycles_and_modules_with_empty_states(client, acme, owner):
    project, states = owner
    html = client.get(_page(acme, project)).get_data(as_text=True)
    for name in states:
        assert name in html
    assert "No cycles yet" in html and "No modules yet" in html
    assert 'data-confirm="Archive Web App?' in html
    assert client.get(_page(acme, project)).status_code == 200


def test_rename_and_describe_records_the_actor(client, acme, owner):
    project, _ = owner
    resp = client.post(_page(acme, project), data={"name": "Web Portal", "description": "Site"})
    assert resp.status_code == 303
    out = client.get(acme.url(f"/projects/{project['id']}"), headers=acme.headers).get_json()
    assert (out["name"], out["description"]) == ("Web Portal", "Site")
    (event,) = _events(client, acme, "project.updated")
    assert event["actor_id"] == str(acme.owner_id)
    assert event["data"]["changes"]["name"] == ["Web App", "Web Portal"]
    # A cleared description box empties it.
    assert client.post(_page(acme, project), data={"name": "Web Portal"}).status_code == 303
    out = client.get(acme.url(f"/projects/{project['id']}"), headers=acme.headers).get_json()
    assert out["description"] == ""


@pytest.mark.parametrize(
    ("name", "message"), [("   ", "Give the project a name."), ("x" * 201, "at most 200")]
)
def test_bad_project_name_is_shown_beside_the_field(client, acme, owner, name, message):
    project, _ = owner
    resp = client.post(_page(acme, project), data={"name": name, "description": "kept"})
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    error = re.search(r'id="project-name-error">([^<]*)<', html)
    assert error and message in error.group(1)
    assert "kept" in html  # what was typed stays in the form
    assert _events(client, acme, "project.updated") == []


def test_archive_and_restore(client, acme, owner):
    project, _ = owner
    assert (
        client.post(_page(acme, project, "/archive"), data={"archived": "true"}).status_code == 303
    )
    listed = client.get(acme.url("/projects"), headers=acme.headers).get_json()
    assert project["id"] not in [p["id"] for p in listed]
    html = client.get(_page(acme, project)).get_data(as_text=True)
    assert "Archived" in html and "Restore project" in html
    # The projects page lists it apart, so it can be found again and restored; its own
    # page says it is archived and offers no New task form (the service refuses one).
    projects_page = client.get(f"/o/{acme.slug}/projects").get_data(as_text=True)
    shelf = projects_page.split("Archived projects (1)", 1)
    assert len(shelf) == 2 and f"/o/{acme.slug}/projects/{project['id']}" in shelf[1]
    board = client.get(f"/o/{acme.slug}/projects/{project['id']}").get_data(as_text=True)
    assert "This project was archived on" in board and 'id="new-task' not in board
    assert (
        client.post(_page(acme, project, "/archive"), data={"archived": "false"}).status_code == 303
    )
    projects_page = client.get(f"/o/{acme.slug}/projects").get_data(as_text=True)
    assert "Archived projects" not in projects_page
    listed = client.get(acme.url("/projects"), headers=acme.headers).get_json()
    assert project["id"] in [p["id"] for p in listed]
    changes = [e["data"]["changes"]["archived"] for e in _events(client, acme, "project.updated")]
    assert sorted(changes) == [[False, True], [True, False]]
    assert_problem_html(client.post(_page(acme, project, "/archive"), data={"archived": "x"}), 400)


def assert_problem_html(resp, status):
    assert resp.status_code == status, resp.get_data(as_text=True)[:500]


# -- states -------------------------------------------------------------------------------


def test_add_state_html_and_its_errors(client, acme, owner):
    project, _ = owner
    resp = client.post(_page(acme, project, "/states"), data={"name": "QA", "category": "started"})
    assert resp.status_code == 303
    assert project_states(client, acme, project["id"])["QA"]["category"] == "started"
    (event,) = _events(client, acme, "project.state_created")
    assert event["actor_id"] == str(acme.owner_id)
    resp = client.post(_page(acme, project, "/states"), data={"name": "qa", "category": "started"})
    assert resp.status_code == 409
    assert "already has a state named" in resp.get_data(as_text=True)
    resp = client.post(_page(acme, project, "/states"), data={"name": "", "category": "started"})
    assert resp.status_code == 400 and 'id="new-state-name-error"' in resp.get_data(as_text=True)
    resp = client.post(_page(acme, project, "/states"), data={"name": "X", "category": "done"})
    assert resp.status_code == 400 and 'id="new-state-category-error"' in resp.get_data(
        as_text=True
    )


def test_rename_state_html_and_json(client, acme, owner):
    project, states = owner
    review = states["In Review"]["id"]
    resp = client.post(_page(acme, project, f"/states/{review}"), data={"name": "QA"})
    assert resp.status_code == 303
    resp = client.patch(
        acme.url(f"/projects/{project['id']}/states/{review}"),
        json={"name": "Quality"},
        headers=acme.headers,
    )
    assert resp.status_code == 200 and resp.get_json()["name"] == "Quality"
    assert resp.get_json()["moved_tasks"] == 0
    renamed = _events(client, acme, "project.state_renamed")
    assert [(e["subject"], e["data"]["old_name"]) for e in renamed] == [
        ("Quality", "QA"),
        ("QA", "In Review"),
    ]
    assert {e["actor_id"] for e in renamed} == {str(acme.owner_id)}
    # Another state's name (any case), blank, too long, null: refused on the field.
    url = acme.url(f"/projects/{project['id']}/states/{review}")
    assert_problem(client.patch(url, json={"name": "done"}, headers=acme.headers), 409, "name")
    assert_problem(client.patch(url, json={"name": "  "}, headers=acme.headers), 422, "name")
    assert_problem(client.patch(url, json={"name": "x" * 101}, headers=acme.headers), 400, "name")
    assert_problem(client.patch(url, json={"name": None}, headers=acme.headers), 400, "name")
    resp = client.post(_page(acme, project, f"/states/{review}"), data={"name": "Done"})
    assert resp.status_code == 409
    assert f'id="state-{review}-name-error"' in resp.get_data(as_text=True)


def test_reorder_with_up_and_down(client, acme, owner):
    project, states = owner
    order = list(project_states(client, acme, project["id"]))
    assert order[:3] == ["Triage", "Backlog", "Todo"]
    todo = states["Todo"]["id"]
    # "Move up" posts the place above.
    assert (
        client.post(_page(acme, project, f"/states/{todo}"), data={"position": "1"}).status_code
        == 303
    )
    assert list(project_states(client, acme, project["id"]))[:3] == ["Triage", "Todo", "Backlog"]
    resp = client.patch(
        acme.url(f"/projects/{project['id']}/states/{todo}"),
        json={"position": 99},
        headers=acme.headers,
    )
    assert resp.status_code == 200
    positions = {n: s["position"] for n, s in project_states(client, acme, project["id"]).items()}
    assert positions["Todo"] == 6 and sorted(positions.values()) == list(range(7))
    moved = _events(client, acme, "project.state_moved")
    assert len(moved) == 2 and moved[0]["actor_id"] == str(acme.owner_id)
    url = acme.url(f"/projects/{project['id']}/states/{todo}")
    assert_problem(client.patch(url, json={"position": -1}, headers=acme.headers), 400, "position")
    assert_problem(client.patch(url, json={"position": "x"}, headers=acme.headers), 400, "position")


def _three_in_review(client, acme, project, states):
    review = states["In Review"]["id"]
    moved = [
        new_task(client, acme, project, title=f"R{i}", state_id=review)["id"] for i in range(3)
    ]
    other = new_task(client, acme, project, title="Other", state_id=states["In Progress"]["id"])
    gone = new_task(client, acme, project, title="Gone", state_id=review)
    assert client.delete(acme.url(f"/tasks/{gone['id']}"), headers=acme.headers).status_code == 204
    return review, moved, other


def test_recategorize_confirms_the_count_first_then_moves_exactly_those_tasks(
    app, client, acme, owner
):
    project, states = owner
    review, moved, other = _three_in_review(client, acme, project, states)
    page = client.get(_page(acme, project, f"/states/{review}/category?category=completed"))
    assert page.status_code == 200
    assert (
        "3 tasks in &#39;In Review&#39; will move from Started to Completed "
        "(they will count as done from now)." in page.get_data(as_text=True)
    )
    # Nothing moved yet; a post without the confirmation only shows the question again.
    assert _tasks(app, title="R0") == {"R0": ("started", None)}
    resp = client.post(
        _page(acme, project, f"/states/{review}/category"), data={"category": "completed"}
    )
    assert resp.status_code == 303 and "/category?category=completed" in resp.location
    assert (
        _state_rows(app, moved) == [] and _events(client, acme, "project.state_recategorized") == []
    )

    resp = client.post(
        _page(acme, project, f"/states/{review}/category"),
        data={"category": "completed", "confirm": "true"},
    )
    assert resp.status_code == 303
    after = _tasks(app)
    for title in ("R0", "R1", "R2"):
        category, completed_at = after[title]
        assert category == "completed" and completed_at is not None
    assert after["Other"] == ("started", None)
    assert after["Gone"][0] == "completed"  # a deleted task's denormalized copy stays true
    rows = _state_rows(app, moved)
    assert sorted(str(r.task_id) for r in rows) == sorted(moved)
    assert {(r.old_category, r.new_category, r.old_value, r.new_value) for r in rows} == {
        ("started", "completed", "In Review", "In Review")
    }
    assert {r.actor_id for r in rows} == {acme.owner_id}
    assert len({r.id for r in rows}) == 3
    assert _state_rows(app, [other["id"]]) == []
    (event,) = _events(client, acme, "project.state_recategorized")
    assert event["actor_id"] == str(acme.owner_id)
    assert event["data"]["moved_tasks"] == "3"
    assert (event["data"]["old_category"], event["data"]["new_category"]) == (
        "started",
        "completed",
    )
    # The API reads the moved task as completed, in its activity too.
    task = client.get(acme.url(f"/tasks/{moved[0]}"), headers=acme.headers).get_json()
    assert task["state_category"] == "completed" and task["completed_at"]
    history = client.get(acme.url(f"/tasks/{moved[0]}/activity"), headers=acme.headers).get_json()
    assert history[-1]["new_category"] == "completed"

    # Back to started through the JSON API: completed_at is cleared, 3 more rows.
    resp = client.patch(
        acme.url(f"/projects/{project['id']}/states/{review}"),
        json={"category": "started"},
        headers=acme.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["moved_tasks"] == 3 and resp.get_json()["category"] == "started"
    assert _tasks(app, title="R1") == {"R1": ("started", None)}
    assert len(_state_rows(app, moved)) == 6


def test_recategorize_preview_words(client, acme, owner):
    project, states = owner
    done = states["Done"]["id"]
    new_task(client, acme, project, title="Shipped", state_id=done)
    client.post(
        acme.url(f"/projects/{project['id']}/states"),
        json={"name": "Released", "category": "completed"},
        headers=acme.headers,
    )
    html = client.get(_page(acme, project, f"/states/{done}/category?category=started")).get_data(
        as_text=True
    )
    assert "1 task in &#39;Done&#39; will move from Completed to Started" in html
    assert "no longer count as done" in html
    todo = states["Todo"]["id"]
    html = client.get(_page(acme, project, f"/states/{todo}/category?category=started")).get_data(
        as_text=True
    )
    assert "No tasks are in &#39;Todo&#39;" in html
    html = client.get(_page(acme, project, f"/states/{todo}/category?category=unstarted"))
    assert "&#39;Todo&#39; is already Unstarted; nothing moves." in html.get_data(as_text=True)


def test_recategorize_guards(client, acme, owner):
    project, states = owner
    base = acme.url(f"/projects/{project['id']}/states")
    # The default state (Backlog) is never completed or cancelled.
    resp = client.patch(
        f"{base}/{states['Backlog']['id']}", json={"category": "completed"}, headers=acme.headers
    )
    assert_problem(resp, 422, "category")
    # The only completed state stays completed.
    resp = client.patch(
        f"{base}/{states['Done']['id']}", json={"category": "started"}, headers=acme.headers
    )
    assert_problem(resp, 422, "category")
    resp = client.get(
        _page(acme, project, f"/states/{states['Done']['id']}/category?category=started")
    )
    assert resp.status_code == 400
    assert "only completed state" in resp.get_data(as_text=True)
    # An unknown category is an error on the field.
    resp = client.patch(
        f"{base}/{states['Todo']['id']}", json={"category": "done"}, headers=acme.headers
    )
    assert_problem(resp, 400, "category")
    resp = client.get(
        _page(acme, project, f"/states/{states['Todo']['id']}/category?category=done")
    )
    assert resp.status_code == 400
    assert f'id="category-{states["Todo"]["id"]}-category-error"' in resp.get_data(as_text=True)


def test_delete_state_rules(client, acme, owner):
    project, states = owner
    base = acme.url(f"/projects/{project['id']}/states")
    new_task(client, acme, project, state_id=states["Todo"]["id"])
    # A state with tasks: the fix is the move's choice, which the problem names.
    assert_problem(
        client.delete(f"{base}/{states['Todo']['id']}", headers=acme.headers), 409, "move_to"
    )
    assert_problem(
        client.delete(f"{base}/{states['Backlog']['id']}", headers=acme.headers), 409, "state_id"
    )
    assert_problem(
        client.delete(f"{base}/{states['Done']['id']}", headers=acme.headers), 409, "state_id"
    )
    resp = client.post(_page(acme, project, f"/states/{states['Todo']['id']}/delete"))
    assert resp.status_code == 409 and "choose the state they move to" in resp.get_data(
        as_text=True
    )
    assert (
        client.delete(f"{base}/{states['In Review']['id']}", headers=acme.headers).status_code
        == 204
    )
    assert (
        client.post(_page(acme, project, f"/states/{states['Cancelled']['id']}/delete")).status_code
        == 303
    )
    left = project_states(client, acme, project["id"])
    assert "In Review" not in left and "Cancelled" not in left
    assert sorted(s["position"] for s in left.values()) == list(range(5))
    deleted = _events(client, acme, "project.state_deleted")
    assert {e["subject"] for e in deleted} == {"In Review", "Cancelled"}
    assert {e["actor_id"] for e in deleted} == {str(acme.owner_id)}


def test_delete_a_state_moving_its_tasks(app, client, acme, owner):
    """Linear and Plane move a deleted state's issues to a state chosen; here the only
    way was to move every task by hand first (102 of them in the demo's Todo)."""
    project, states = owner
    todo, doing = states["Todo"]["id"], states["In Progress"]["id"]
    kept = [new_task(client, acme, project, title=f"T{i}", state_id=todo) for i in range(3)]
    shelved = client.patch(acme.url(f"/tasks/{kept[2]['id']}"), json={"archived": True},
                           headers=acme.headers)  # fmt: skip
    assert shelved.status_code == 200
    page = client.get(_page(acme, project)).get_data(as_text=True)
    assert f'action="{_page(acme, project, f"/states/{todo}/delete")}"' in page
    assert "Move its 3 tasks to" in page and "Delete and move" in page
    assert '<option value="">Choose a state…</option>' in page  # none picked for you
    assert "1 of them is archived" in page
    # A deleted task in it follows the live ones, so restored it is in the state chosen.
    binned = new_task(client, acme, project, title="Binned", state_id=todo)
    assert (
        client.delete(acme.url(f"/tasks/{binned['id']}"), headers=acme.headers).status_code == 204
    )
    # Refusals name the field and change nothing: the state itself, another project's.
    url = _page(acme, project, f"/states/{todo}/delete")
    assert client.post(url, data={"move_to": todo}).status_code == 400
    unchosen = client.post(url, data={"move_to": ""})
    assert unchosen.status_code == 409
    html = unchosen.get_data(as_text=True)
    # Beside the select, marked, so the page brings it into view and focuses it.
    assert re.search(
        rf'<select id="move-{todo}-move_to" name="move_to" required aria-invalid="true"', html
    )
    assert "choose the state they move to" in html
    other = create_project(client, acme, "Other", "OTH")
    other_states = project_states(client, acme, other["id"])
    foreign = client.delete(acme.url(f"/projects/{project['id']}/states/{todo}"),
                            query_string={"move_to": other_states["Todo"]["id"]},
                            headers=acme.headers)  # fmt: skip
    assert_problem(foreign, 422, "move_to")
    resp = client.post(url, data={"move_to": doing})
    assert resp.status_code == 303
    landing = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "State &#39;Todo&#39; deleted; 3 tasks moved first." in landing
    for task in kept:
        moved = client.get(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).get_json()
        assert moved["state_id"] == doing
        history = client.get(acme.url(f"/tasks/{task['id']}/activity"),
                             headers=acme.headers).get_json()  # fmt: skip
        moves = [(a["old_value"], a["new_value"]) for a in history if a["field"] == "state"]
        assert moves == [("Todo", "In Progress")]
    assert "Todo" not in project_states(client, acme, project["id"])
    restore = acme.url(f"/projects/{project['id']}/deleted-tasks/{binned['id']}/restore")
    assert client.post(restore, headers=acme.headers).get_json()["state_id"] == doing
    assert rollups_consistent(app)


def test_a_deleted_task_does_not_keep_a_state(app, client, acme, owner):
    project, states = owner
    task = new_task(client, acme, project, state_id=states["In Review"]["id"])
    assert client.delete(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).status_code == 204
    resp = client.delete(
        acme.url(f"/projects/{project['id']}/states/{states['In Review']['id']}"),
        headers=acme.headers,
    )
    assert resp.status_code == 204
    with app.app_context():
        assert db.session.get(Task, uuid.UUID(task["id"])).state.name == "Backlog"


def test_unknown_and_foreign_ids_are_404(client, acme, globex, owner):
    project, _ = owner
    other = create_project(client, acme, "Ops", "OPS")
    other_state = project_states(client, acme, other["id"])["Todo"]["id"]
    foreign, _ = setup_project(client, globex)
    base = acme.url(f"/projects/{project['id']}")
    for path in (
        f"/states/{other_state}",
        f"/states/{uuid.uuid4()}",
        f"/cycles/{uuid.uuid4()}",
        f"/modules/{uuid.uuid4()}",
    ):
        assert_problem(client.patch(base + path, json={"name": "X"}, headers=acme.headers), 404)
    assert_problem(client.delete(f"{base}/states/{other_state}", headers=acme.headers), 404)
    assert_problem(
        client.patch(
            acme.url(f"/projects/{foreign['id']}/states/{uuid.uuid4()}"),
            json={},
            headers=acme.headers,
        ),
        404,
    )
    assert (
        client.post(_page(acme, project, f"/states/{other_state}"), data={"name": "X"}).status_code
        == 404
    )
    assert (
        client.get(
            _page(acme, project, f"/states/{other_state}/category?category=started")
        ).status_code
        == 404
    )
    assert client.get(f"/o/{acme.slug}/projects/{foreign['id']}/settings").status_code == 404


def test_malformed_json_and_unknown_fields(client, acme, owner):
    project, states = owner
    url = acme.url(f"/projects/{project['id']}/states/{states['Todo']['id']}")
    resp = client.patch(
        url, data="{nope", headers=acme.headers | {"Content-Type": "application/json"}
    )
    assert_problem(resp, 400)
    assert_problem(client.patch(url, json={"colour": "#fff"}, headers=acme.headers), 400, "colour")
    assert_problem(client.patch(url, json=["name"], headers=acme.headers), 400)


# -- cycles and modules ---------------------------------------------------------------------


def test_cycles_add_rename_and_dates(client, acme, owner):
    project, _ = owner
    resp = client.post(
        _page(acme, project, "/cycles"),
        data={"name": "Sprint 1", "start_date": "2026-03-01", "end_date": "2026-03-14"},
    )
    assert resp.status_code == 303
    (cycle,) = client.get(
        acme.url(f"/projects/{project['id']}/cycles"), headers=acme.headers
    ).get_json()
    resp = client.post(
        _page(acme, project, f"/cycles/{cycle['id']}"),
        data={"name": "Sprint One", "start_date": "2026-03-02", "end_date": "2026-03-16"},
    )
    assert resp.status_code == 303
    url = acme.url(f"/projects/{project['id']}/cycles/{cycle['id']}")
    resp = client.patch(url, json={"end_date": None}, headers=acme.headers)
    assert resp.status_code == 200
    assert resp.get_json() == {
        "id": cycle["id"],
        "name": "Sprint One",
        "start_date": "2026-03-02",
        "end_date": None,
    }
    updated = _events(client, acme, "project.cycle_updated")
    assert len(updated) == 2 and {e["actor_id"] for e in updated} == {str(acme.owner_id)}
    assert ["Sprint 1", "Sprint One"] in [e["data"]["changes"].get("name") for e in updated]
    assert [None, None] not in [e["data"]["changes"].get("end_date") for e in updated]
    # End before start: a clear error on end_date, in JSON and beside the field.
    resp = client.patch(url, json={"end_date": "2026-03-01"}, headers=acme.headers)
    assert_problem(resp, 422, "end_date")
    assert "cannot end" in resp.get_json()["detail"]
    resp = client.post(
        _page(acme, project, f"/cycles/{cycle['id']}"),
        data={"name": "Sprint One", "start_date": "2026-03-10", "end_date": "2026-03-01"},
    )
    assert resp.status_code == 400
    error = re.search(
        rf'id="cycle-{cycle["id"]}-end_date-error">([^<]*)<', resp.get_data(as_text=True)
    )
    assert error and "cannot end" in error.group(1)
    resp = client.post(
        _page(acme, project, "/cycles"),
        data={"name": "Sprint 2", "start_date": "2026-04-10", "end_date": "2026-04-01"},
    )
    assert resp.status_code == 400 and 'id="new-cycle-end_date-error"' in resp.get_data(
        as_text=True
    )
    client.post(
        acme.url(f"/projects/{project['id']}/cycles"),
        json={"name": "Sprint 2"},
        headers=acme.headers,
    )
    assert_problem(client.patch(url, json={"name": "sprint 2"}, headers=acme.headers), 409, "name")
    assert_problem(client.patch(url, json={"name": ""}, headers=acme.headers), 422, "name")
    assert_problem(
        client.patch(url, json={"start_date": "soon"}, headers=acme.headers), 400, "start_date"
    )


def test_modules_add_rename_and_describe(client, acme, owner):
    project, _ = owner
    assert client.post(_page(acme, project, "/modules"), data={"name": "Auth"}).status_code == 303
    (module,) = client.get(
        acme.url(f"/projects/{project['id']}/modules"), headers=acme.headers
    ).get_json()
    resp = client.post(
        _page(acme, project, f"/modules/{module['id']}"),
        data={"name": "Login", "description": "Sign-in and SSO"},
    )
    assert resp.status_code == 303
    url = acme.url(f"/projects/{project['id']}/modules/{module['id']}")
    resp = client.patch(url, json={"description": "Sign-in"}, headers=acme.headers)
    assert resp.get_json() == {"id": module["id"], "name": "Login", "description": "Sign-in"}
    updated = _events(client, acme, "project.module_updated")
    assert len(updated) == 2 and {e["actor_id"] for e in updated} == {str(acme.owner_id)}
    client.post(
        acme.url(f"/projects/{project['id']}/modules"),
        json={"name": "Billing"},
        headers=acme.headers,
    )
    assert_problem(client.patch(url, json={"name": "BILLING"}, headers=acme.headers), 409, "name")
    assert_problem(
        client.patch(url, json={"description": "x" * 2001}, headers=acme.headers),
        400,
        "description",
    )
    resp = client.post(_page(acme, project, f"/modules/{module['id']}"), data={"name": "x" * 101})
    assert resp.status_code == 400
    assert f'id="module-{module["id"]}-name-error"' in resp.get_data(as_text=True)


# -- the permission table -------------------------------------------------------------------

ROLES = ["viewer", "commenter", "member", "admin", "agent"]


@pytest.fixture
def world(app, client, acme):
    """A project with one of everything and a caller per role (``admin`` is an org
    admin with no project role; ``agent`` holds the project member role)."""
    project, states = setup_project(client, acme)
    base = acme.url(f"/projects/{project['id']}")
    cycle = client.post(base + "/cycles", json={"name": "S1"}, headers=acme.headers).get_json()
    module = client.post(base + "/modules", json={"name": "M1"}, headers=acme.headers).get_json()
    spare = client.post(
        base + "/states", json={"name": "Spare", "category": "started"}, headers=acme.headers
    ).get_json()
    callers = {}
    for role in ("viewer", "commenter", "member"):
        person = add_person(app, acme.org_id, f"{role}@acme.test")
        resp = client.post(
            base + "/members",
            json={"account_id": str(person.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code == 201
        callers[role] = person
    callers["admin"] = add_person(app, acme.org_id, "admin@acme.test", role="admin")
    agent = create_agent(client, acme, project_ids=[project["id"]])
    return {
        "project": project,
        "states": states,
        "cycle": cycle,
        "module": module,
        "spare": spare,
        "callers": callers,
        "agent": agent,
    }


def _json_writes(w):
    p = w["project"]["id"]
    return [
        ("PATCH", f"/projects/{p}/states/{w['states']['Todo']['id']}", {"name": "To do"}, 200),
        ("DELETE", f"/projects/{p}/states/{w['spare']['id']}", None, 204),
        ("PATCH", f"/projects/{p}/cycles/{w['cycle']['id']}", {"name": "S2"}, 200),
        ("PATCH", f"/projects/{p}/modules/{w['module']['id']}", {"name": "M2"}, 200),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_json_permission_table(client, acme, world, role):
    headers = bearer(world["agent"]["token"]) if role == "agent" else world["callers"][role].headers
    for method, path, body, ok in _json_writes(world):
        resp = client.open(acme.url(path), method=method, json=body, headers=headers)
        if role == "admin":
            assert resp.status_code == ok, (path, resp.get_json())
        else:
            assert_problem(resp, 403)
            assert resp.get_json()["detail"] == WORKFLOW_403
    # Another org's member: the project does not exist for them.
    stranger = add_person(client.application, world["callers"]["admin"].org_id, "x@acme.test")
    assert stranger  # an org member with no project role reads but does not write
    resp = client.patch(
        acme.url(_json_writes(world)[0][1]), json={"name": "Y"}, headers=stranger.headers
    )
    assert_problem(resp, 403)


def _html_routes(w):
    s, t = w["spare"]["id"], w["states"]["Todo"]["id"]
    return [
        ("GET", "", None, "project.read", 200),
        ("POST", "", {"name": "Renamed"}, "project.edit", 303),
        ("POST", "/archive", {"archived": "true"}, "project.edit", 303),
        ("POST", "/states", {"name": "QA", "category": "started"}, "workflow", 303),
        ("POST", f"/states/{t}", {"name": "To do"}, "workflow", 303),
        ("GET", f"/states/{t}/category?category=started", None, "workflow", 200),
        (
            "POST",
            f"/states/{t}/category",
            {"category": "started", "confirm": "true"},
            "workflow",
            303,
        ),
        ("POST", f"/states/{s}/delete", None, "workflow", 303),
        ("POST", "/cycles", {"name": "S9"}, "workflow", 303),
        ("POST", f"/cycles/{w['cycle']['id']}", {"name": "S2"}, "workflow", 303),
        ("POST", "/modules", {"name": "M9"}, "workflow", 303),
        ("POST", f"/modules/{w['module']['id']}", {"name": "M2"}, "workflow", 303),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_html_permission_table(app, acme, world, role):
    browser = app.test_client()
    if role == "agent":
        # An agent's token opens no page: pages take a browser session only.
        resp = browser.get(_page(acme, world["project"]), headers=bearer(world["agent"]["token"]))
        assert resp.status_code == 302 and "/signin" in resp.location
        return
    login(browser, world["callers"][role].owner_email)
    for method, path, form, action, ok in _html_routes(world):
        resp = browser.open(_page(acme, world["project"], path), method=method, data=form)
        if role == "admin" or action == "project.read":
            assert resp.status_code == ok, (role, path, resp.get_data(as_text=True)[:300])
        else:
            assert resp.status_code == 403, (role, path)
            message = EDIT_403 if action == "project.edit" else WORKFLOW_403
            assert message in resp.get_data(as_text=True)


@pytest.mark.parametrize("role", ["viewer", "commenter", "member"])
def test_read_only_view_says_who_can_change(app, acme, world, role):
    browser = app.test_client()
    login(browser, world["callers"][role].owner_email)
    html = browser.get(_page(acme, world["project"])).get_data(as_text=True)
    assert "only a project admin (or an org owner or admin) can" in html
    assert "Project admins: Acme Owner" in html
    assert "<form" not in html.split('id="general"')[1].split("</section>")[0]
    assert "Add a state" not in html and "Archive project" not in html


def test_archived_project_still_has_its_settings(app, client, acme, owner):
    project, _ = owner
    client.post(_page(acme, project, "/archive"), data={"archived": "true"})
    with app.app_context():
        assert db.session.get(Project, uuid.UUID(project["id"])).archived_at is not None
    assert client.get(_page(acme, project)).status_code == 200


def test_cycles_and_modules_show_their_tasks_and_can_be_deleted(app, client, acme, owner):
    """A cycle was a row of settings: no count, no way to its tasks but typing PQL, and
    no way to delete it (the API's DELETE was a 405)."""
    project, states = owner
    base = acme.url(f"/projects/{project['id']}")
    cycle = client.post(base + "/cycles", json={"name": 'Sprint "4"'}, headers=acme.headers)
    module = client.post(base + "/modules", json={"name": "Auth"}, headers=acme.headers)
    cycle_id, module_id = cycle.get_json()["id"], module.get_json()["id"]
    done = states["Done"]["id"]
    in_cycle = [new_task(client, acme, project, title=f"C{i}", cycle_id=cycle_id,
                         module_id=module_id, state_id=done if i == 0 else None)
                for i in range(3)]  # fmt: skip
    page = client.get(_page(acme, project)).get_data(as_text=True)
    row = page.split(f'id="cycle-{cycle_id}"', 1)[1].split("</li>", 1)[0]
    assert "3 tasks · 1 done (33%)" in row
    link = re.search(r'href="([^"]*pql=[^"]*)">Open its tasks', row).group(1)
    listed = client.get(unescape(link)).get_data(as_text=True)
    assert all(t["key"] in listed for t in in_cycle)
    # Deleting asks first; the tasks stay, out of the cycle, each in its history.
    assert "Delete the cycle" in row and "data-confirm" in row
    resp = client.post(_page(acme, project, f"/cycles/{cycle_id}/delete"))
    assert resp.status_code == 303
    landing = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Cycle &#39;Sprint &#34;4&#34;&#39; deleted; its 3 tasks stay, out of it." in landing
    for task in in_cycle:
        now = client.get(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).get_json()
        assert now["cycle_id"] is None and now["module_id"] == module_id
        fields = [a["field"] for a in client.get(acme.url(f"/tasks/{task['id']}/activity"),
                                                 headers=acme.headers).get_json()]  # fmt: skip
        assert "cycle_id" in fields
    gone = client.delete(f"{base}/modules/{module_id}", headers=acme.headers)
    assert gone.status_code == 204
    assert client.delete(f"{base}/modules/{module_id}", headers=acme.headers).status_code == 404
    events = {e["kind"] for e in _events(client, acme, "project.")}
    assert {"project.cycle_deleted", "project.module_deleted"} <= events
    assert rollups_consistent(app)


def test_a_projects_dated_cycles_do_not_overlap(client, acme, owner):
    """A day belongs to one cycle, as in Linear and Plane: "Overlap" from 30 Nov over
    "Sprint 1" to 6 Dec was accepted, so which cycle is current had two answers."""
    project, _ = owner
    base = acme.url(f"/projects/{project['id']}/cycles")

    def add(name, start=None, end=None):
        return client.post(base, json={"name": name, "start_date": start, "end_date": end},
                           headers=acme.headers)  # fmt: skip

    assert add("Sprint 1", "2026-11-23", "2026-12-06").status_code == 201
    clash = add("Overlap", "2026-11-30", "2026-12-13")
    assert_problem(clash, 422, "start_date")
    assert "overlap “Sprint 1” (23 Nov 2026 to 6 Dec 2026)" in clash.get_json()["detail"]
    after = add("Sprint 2", "2026-12-07", "2026-12-20")
    assert after.status_code == 201
    assert add("Someday").status_code == 201  # no dates: unscheduled, overlaps nothing
    moved = client.patch(f"{base}/{after.get_json()['id']}", json={"start_date": "2026-12-06"},
                         headers=acme.headers)  # fmt: skip
    assert_problem(moved, 422, "start_date")
    same = client.patch(f"{base}/{after.get_json()['id']}", json={"end_date": "2026-12-21"},
                        headers=acme.headers)  # fmt: skip
    assert same.status_code == 200  # its own dates are no overlap
