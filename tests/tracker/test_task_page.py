"""The task page (/o/<org>/tasks/<KEY>): in-place edits through update_task, comments
(add, edit and delete your own), one timeline, Markdown safety, archive and delete,
and the permission table for every route, HTML and JSON."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    get_json,
    login,
    new_task,
    setup_project,
)
from workspace.tracker.task_page.markdown import render_markdown

HX = {"HX-Request": "true"}


# -- helpers ----------------------------------------------------------------------------


def page_url(org, key: str, path: str = "") -> str:
    return f"/o/{org.slug}/tasks/{key}{path}"


def activity(client, org, task) -> list[dict]:
    return get_json(client, org, f"/tasks/{task['id']}/activity")


def read_task(client, org, task) -> dict:
    return get_json(client, org, f"/tasks/{task['id']}")


def set_role(client, org, project, account_id, role: str) -> None:
    resp = client.post(
        org.url(f"/projects/{project['id']}/members"),
        json={"account_id": str(account_id), "role": role},
        headers=org.headers,
    )
    assert resp.status_code == 201, resp.get_json()


@pytest.fixture
def world(client, acme):
    """A project with a cycle, a module, a task, and a second member to assign."""
    project, states = setup_project(client, acme)
    base = acme.url(f"/projects/{project['id']}")
    cycle = client.post(base + "/cycles", json={"name": "Sprint 1"}, headers=acme.headers)
    module = client.post(base + "/modules", json={"name": "Auth"}, headers=acme.headers)
    assert cycle.status_code == module.status_code == 201
    mia = add_person(client.application, acme.org_id, "mia@acme.test")
    task = new_task(client, acme, project, title="Fix login")
    login(client, acme.owner_email)
    return {
        "project": project,
        "states": states,
        "cycle": cycle.get_json(),
        "module": module.get_json(),
        "mia": mia,
        "task": task,
    }


def text_of(html: str) -> str:
    """The page's text without tags, whitespace folded (what a reader sees)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# -- the page ---------------------------------------------------------------------------


def test_page_shows_the_task_with_breadcrumbs_and_its_history(client, acme, world):
    task = world["task"]
    resp = client.get(page_url(acme, task["key"]))
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert "Fix login" in html and 'id="task-key"' in html and 'data-copy="#task-key"' in html
    assert f'href="/o/{acme.slug}/projects/{world["project"]["id"]}"' in html
    assert f'href="/o/{acme.slug}/projects"' in html
    assert "Acme Owner created the task" in text_of(html)
    # The key is case-insensitive, as people type it.
    assert client.get(page_url(acme, task["key"].lower())).status_code == 200


def test_unknown_and_foreign_keys_are_404(client, acme, globex, world):
    other_project, _ = setup_project(client, globex)
    foreign = new_task(client, globex, other_project)
    assert client.get(page_url(acme, "WEB-999")).status_code == 404
    assert client.get(page_url(acme, "nonsense")).status_code == 404
    # Globex's task has the same key shape (WEB-1) but lives in another org: the acme
    # owner asking for it under globex's slug is not a member there.
    assert client.get(page_url(globex, foreign["key"])).status_code == 404
    resp = client.post(page_url(globex, foreign["key"], "/fields/title"), data={"title": "x"})
    assert resp.status_code == 404
    assert client.post(page_url(acme, world["task"]["key"], "/fields/nope")).status_code == 404


# -- every field, through both paths ----------------------------------------------------


def _edits(world) -> list[tuple[str, str, str, object]]:
    """(URL field, form name, form value, expected value in the JSON task)."""
    st = world["states"]
    return [
        ("title", "title", "Fix the login form", "Fix the login form"),
        ("description", "description", "Steps: **click**", "Steps: **click**"),
        ("state", "state_id", st["In Progress"]["id"], st["In Progress"]["id"]),
        ("priority", "priority", "urgent", "urgent"),
        ("kind", "kind", "bug", "bug"),
        ("assignee", "assignee_id", str(world["mia"].owner_id), str(world["mia"].owner_id)),
        ("cycle", "cycle_id", world["cycle"]["id"], world["cycle"]["id"]),
        ("module", "module_id", world["module"]["id"], world["module"]["id"]),
        ("due_date", "due_date", "2026-03-01", "2026-03-01"),
    ]


KEYS = {"state_id": "state_id"}


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "form"])
def test_every_field_edit_writes_one_activity_row_with_the_actor(client, acme, world, htmx):
    task = world["task"]
    for field, name, value, expected in _edits(world):
        before = len(activity(client, acme, task))
        resp = client.post(
            page_url(acme, task["key"], f"/fields/{field}"),
            data={name: value},
            headers=HX if htmx else {},
        )
        if htmx:
            assert resp.status_code == 200, (field, resp.get_data(as_text=True))
            html = resp.get_data(as_text=True)
            assert f'id="field-{field}"' in html
            assert 'id="timeline" class="timeline" hx-swap-oob="true"' in html
            assert "HX-Request" in resp.headers.get("Vary", "")
        else:
            assert resp.status_code == 303, field
            assert resp.headers["Location"].endswith(f"/tasks/{task['key']}#field-{field}")
        rows = activity(client, acme, task)
        assert len(rows) == before + 1, field
        assert rows[-1]["actor_id"] == str(acme.owner_id)
        assert read_task(client, acme, task)[name] == expected, field
    # Saving the same value again changes nothing and writes nothing.
    before = len(activity(client, acme, task))
    client.post(page_url(acme, task["key"], "/fields/kind"), data={"kind": "bug"})
    assert len(activity(client, acme, task)) == before


def test_clearing_a_field_and_the_timeline_in_words(client, acme, world):
    task, mia = world["task"], world["mia"]
    url = page_url(acme, task["key"])
    client.post(url + "/fields/assignee", data={"assignee_id": str(mia.owner_id)})
    client.post(url + "/fields/state", data={"state_id": world["states"]["Done"]["id"]})
    client.post(url + "/fields/priority", data={"priority": "high"})
    client.post(url + "/fields/cycle", data={"cycle_id": world["cycle"]["id"]})
    client.post(url + "/fields/due_date", data={"due_date": "2026-03-01"})
    resp = client.post(url + "/fields/assignee", data={"assignee_id": ""}, headers=HX)
    assert resp.status_code == 200
    assert read_task(client, acme, task)["assignee_id"] is None
    assert read_task(client, acme, task)["completed_at"] is not None
    shown = text_of(client.get(url).get_data(as_text=True))
    assert "Acme Owner assigned Mia" in shown
    assert "changed the state from Backlog to Done" in shown
    assert "changed the priority from None to High" in shown
    assert "changed the cycle from none to Sprint 1" in shown
    assert "changed the due date from none to 1 Mar 2026" in shown
    assert "Acme Owner unassigned Mia" in shown
    assert str(mia.owner_id) not in shown


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "form"])
@pytest.mark.parametrize(
    ("field", "data", "message"),
    [
        ("title", {"title": "   "}, "A task needs a title."),
        ("title", {"title": "x" * 501}, "at most 500 characters"),
        ("state", {"state_id": str(uuid.uuid4())}, "does not belong to this project"),
        ("state", {"state_id": "not-a-uuid"}, "valid UUID"),
        ("state", {"state_id": ""}, "Choose a state."),
        ("priority", {"priority": "meh"}, "Input should be"),
        ("assignee", {"assignee_id": str(uuid.uuid4())}, "not an active member"),
        ("cycle", {"cycle_id": str(uuid.uuid4())}, "does not belong to this project"),
        ("due_date", {"due_date": "2026-13-45"}, "Enter a date as YYYY-MM-DD"),
        ("description", {"description": "x" * 20001}, "at most 20000 characters"),
    ],
)
def test_bad_values_are_refused_on_the_field_and_nothing_is_written(
    client, acme, world, htmx, field, data, message
):
    task = world["task"]
    before_rows, before = len(activity(client, acme, task)), read_task(client, acme, task)
    resp = client.post(
        page_url(acme, task["key"], f"/fields/{field}"), data=data, headers=HX if htmx else {}
    )
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    error = re.search(rf'<span class="field-error" id="f-{field}-error">([^<]*)</span>', html)
    assert error and message in error.group(1), html[:2000]
    assert 'aria-invalid="true"' in html
    if htmx:
        assert 'id="timeline"' not in html  # the field alone comes back
    else:
        assert "<html" in html  # the whole page, the message beside the field
    assert len(activity(client, acme, task)) == before_rows
    after = read_task(client, acme, task)
    assert after["updated_at"] == before["updated_at"] and after["title"] == before["title"]


def test_assignees_from_another_org_or_inactive_are_refused_and_agents_offered(
    client, acme, globex, world
):
    task = world["task"]
    url = page_url(acme, task["key"], "/fields/assignee")
    resp = client.post(url, data={"assignee_id": str(globex.owner_id)})
    assert resp.status_code == 400 and "not an active member" in resp.get_data(as_text=True)
    agent = create_agent(client, acme, "Triage Bot", [world["project"]["id"]])
    page_html = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    assert "Triage Bot (agent)" in page_html and "Mia</option>" in page_html
    assert client.post(url, data={"assignee_id": agent["id"]}).status_code == 303
    shown = text_of(client.get(page_url(acme, task["key"])).get_data(as_text=True))
    assert "Acme Owner assigned Triage Bot" in shown
    assert read_task(client, acme, task)["assignee_id"] == agent["id"]


# -- comments ---------------------------------------------------------------------------


def _comment_ids(client, org, task) -> list[str]:
    return [c["id"] for c in get_json(client, org, f"/tasks/{task['id']}/comments")]


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "form"])
def test_add_edit_and_delete_your_own_comment(client, acme, world, htmx):
    task = world["task"]
    url = page_url(acme, task["key"], "/comments")
    headers = HX if htmx else {}
    resp = client.post(url, data={"body": "Looks **good**"}, headers=headers)
    assert resp.status_code == (200 if htmx else 303)
    if htmx:
        assert 'id="discussion"' in resp.get_data(as_text=True)
    (cid,) = _comment_ids(client, acme, task)
    resp = client.post(f"{url}/{cid}", data={"body": "Looks great"}, headers=headers)
    assert resp.status_code == (200 if htmx else 303)
    html = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    assert "Looks great" in html and "Looks <strong>good</strong>" not in html
    assert re.search(r'class="muted tl-edited"[^>]*>edited<', html)
    resp = client.post(f"{url}/{cid}/delete", headers=headers)
    assert resp.status_code == (200 if htmx else 303)
    html = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    assert "comment deleted" in html and "Looks great" not in html
    rows = activity(client, acme, task)
    fields = [a["field"] for a in rows]
    assert fields.count("comment") == fields.count("comment_edited") == 1
    assert fields.count("comment_deleted") == 1
    assert all(a["actor_id"] == str(acme.owner_id) for a in rows)
    # The history points at the comment; no copy of the deleted words survives in it.
    comment_rows = [a for a in rows if a["field"].startswith("comment")]
    assert {a["new_value"] for a in comment_rows} == {cid}
    assert "Looks" not in json.dumps(rows)


def test_blank_and_too_long_comments_are_refused_beside_the_field(client, acme, world):
    task = world["task"]
    url = page_url(acme, task["key"], "/comments")
    resp = client.post(url, data={"body": "  "}, headers=HX)
    assert resp.status_code == 400
    assert 'id="new-comment-error">A comment cannot be empty.' in resp.get_data(as_text=True)
    resp = client.post(url, data={"body": "x" * 20001})
    assert resp.status_code == 400
    assert "at most 20000 characters" in resp.get_data(as_text=True)
    assert _comment_ids(client, acme, task) == []
    client.post(url, data={"body": "First"})
    (cid,) = _comment_ids(client, acme, task)
    resp = client.post(f"{url}/{cid}", data={"body": ""}, headers=HX)
    assert resp.status_code == 400
    assert f'id="edit-{cid}-error">A comment cannot be empty.' in resp.get_data(as_text=True)
    # A refused edit keeps what was typed in its box, not the saved text.
    long = "A long rewrite " + "y" * 20000
    resp = client.post(f"{url}/{cid}", data={"body": long}, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "at most 20000 characters" in html
    assert f"{long}</textarea>" in html


def test_someone_elses_comment_cannot_be_edited_and_only_an_admin_deletes_it(client, acme, world):
    task, project = world["task"], world["project"]
    mia = world["mia"]
    set_role(client, acme, project, mia.owner_id, "member")
    resp = client.post(
        acme.url(f"/tasks/{task['id']}/comments"), json={"body": "Owner says"}, headers=acme.headers
    )
    cid = resp.get_json()["id"]
    login(client, mia.owner_email)
    url = page_url(acme, task["key"], f"/comments/{cid}")
    resp = client.post(url, data={"body": "Mia rewrites"})
    assert resp.status_code == 403
    assert "Only the comment&#39;s author can edit it." in resp.get_data(as_text=True)
    resp = client.post(url + "/delete")
    assert resp.status_code == 403
    assert "or an org admin can delete it" in resp.get_data(as_text=True)
    html = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    assert f'id="edit-{cid}"' not in html and f"{cid}/delete" not in html  # no controls
    # Mia's own comment: the org owner (an admin) may delete it, not edit it.
    client.post(page_url(acme, task["key"], "/comments"), data={"body": "Mia's note"})
    mine = _comment_ids(client, acme, task)[-1]
    login(client, acme.owner_email)
    url = page_url(acme, task["key"], f"/comments/{mine}")
    assert client.post(url, data={"body": "Owner rewrites"}).status_code == 403
    assert client.post(url + "/delete").status_code == 303
    comments = get_json(client, acme, f"/tasks/{task['id']}/comments")
    assert comments[-1]["deleted"] is True and comments[-1]["body"] == ""
    # A deleted comment cannot be edited or deleted again.
    assert client.post(url + "/delete").status_code == 409


def test_comment_of_another_task_is_404(client, acme, world):
    other = new_task(client, acme, world["project"], title="Other")
    resp = client.post(
        acme.url(f"/tasks/{other['id']}/comments"), json={"body": "there"}, headers=acme.headers
    )
    cid = resp.get_json()["id"]
    url = page_url(acme, world["task"]["key"], f"/comments/{cid}")
    assert client.post(url, data={"body": "here"}).status_code == 404
    assert client.post(url + "/delete").status_code == 404
    api = acme.url(f"/tasks/{world['task']['id']}/comments/{cid}")
    assert_problem(client.patch(api, json={"body": "x"}, headers=acme.headers), 404)
    assert_problem(client.delete(api, headers=acme.headers), 404)


def test_timeline_orders_comments_and_changes_together(client, acme, world):
    task = world["task"]
    url = page_url(acme, task["key"])
    client.post(url + "/comments", data={"body": "First comment"})
    client.post(url + "/fields/priority", data={"priority": "low"})
    client.post(url + "/comments", data={"body": "Second comment"})
    client.post(url + "/fields/kind", data={"kind": "feature"})
    shown = text_of(client.get(url).get_data(as_text=True))
    order = [
        "created the task",
        "First comment",
        "changed the priority from None to Low",
        "Second comment",
        "changed the kind from Task to Feature",
    ]
    positions = [shown.index(text) for text in order]
    assert positions == sorted(positions)
    html = client.get(url).get_data(as_text=True)
    exact = r"\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC"  # "29 Nov 2026, 14:05 UTC"
    assert re.search(rf'<time datetime="[^"]+" title="{exact}">just now', html)


# -- Markdown ---------------------------------------------------------------------------

HOSTILE = "\n\n".join(
    [
        "<script>alert('x')</script>",
        "[click](javascript:alert(1))",
        "[data](data:text/html;base64,PHNjcmlwdD4=)",
        "![tracker](https://evil.example/pixel.png)",
        '<img src="https://evil.example/a.png" onerror="alert(1)">',
        '<a href="https://evil.example" onclick="alert(1)">x</a>',
        "[docs](https://docs.example/page) and <mailto:a@b.example>",
        "[ref]: https://evil.example/ref.png\n\n![ref]",
        "**bold**",
    ]
)


def test_markdown_renders_safely():
    html = str(render_markdown(HOSTILE))
    assert (
        "<script" not in html
        and "<img" not in html
        and '<a href="https://evil.example" onclick' not in html
    )
    assert "onerror=" not in html.replace("onerror=&quot;", "")  # only as escaped text
    assert 'href="javascript' not in html.lower() and 'href="data:' not in html
    assert '<a href="https://docs.example/page" rel="nofollow noopener noreferrer">docs</a>' in html
    assert '<a href="mailto:a@b.example" rel="nofollow noopener noreferrer">' in html
    assert "<strong>bold</strong>" in html
    assert re.findall(r"<a [^>]*>", html) == [
        a for a in re.findall(r"<a [^>]*>", html) if 'rel="nofollow noopener noreferrer"' in a
    ]
    assert "&lt;script&gt;" in html
    assert str(render_markdown("[rel](/o/acme/admin)")) == "<p>[rel](/o/acme/admin)</p>\n"
    assert str(render_markdown("")) == ""


def test_description_and_comments_render_markdown_safely_on_the_page(client, acme, world):
    task = world["task"]
    url = page_url(acme, task["key"])
    assert (
        client.post(url + "/fields/description", data={"description": HOSTILE}).status_code == 303
    )
    assert client.post(url + "/comments", data={"body": HOSTILE}).status_code == 303
    html = client.get(url).get_data(as_text=True)
    # What is rendered, beside the edit boxes that hold the text as typed (escaped).
    main = re.sub(r"<textarea[^>]*>.*?</textarea>", "", html.split("<main", 1)[1], flags=re.S)
    assert "<script>alert" not in main and "<img" not in main
    assert 'href="javascript' not in main.lower() and 'onclick="' not in main
    assert 'onerror="' not in main and 'src="https://evil' not in main
    assert main.count('rel="nofollow noopener noreferrer">docs</a>') == 2
    assert main.count("<strong>bold</strong>") == 2


# -- archive and delete -----------------------------------------------------------------


def test_archive_shows_a_banner_and_restore_brings_it_back(client, acme, world):
    task = world["task"]
    url = page_url(acme, task["key"])
    html = client.get(url).get_data(as_text=True)
    assert re.search(r'<form[^>]*/archive"\s+data-confirm="Archive', html)
    resp = client.post(url + "/archive", data={"archived": "true"})
    assert resp.status_code == 303
    assert read_task(client, acme, task)["archived_at"] is not None
    html = client.get(url).get_data(as_text=True)
    assert "archived-banner" in html and "Restore</button>" in html
    # The flash has Undo, as a delete's has: the same form, archived=false.
    undo = re.search(r'<form method="post" action="([^"]+)" class="flash-action">(.*?)</form>',
                     html, re.S)  # fmt: skip
    assert undo and undo.group(1) == url + "/archive"
    assert '<input type="hidden" name="archived" value="false">' in undo.group(2)
    assert client.post(url + "/archive", data={"archived": "false"}).status_code == 303
    assert read_task(client, acme, task)["archived_at"] is None
    assert "archived-banner" not in client.get(url).get_data(as_text=True)
    fields = [a["field"] for a in activity(client, acme, task)]
    assert fields.count("archived") == 2
    shown = text_of(client.get(url).get_data(as_text=True))
    assert "archived the task" in shown and "restored the task" in shown
    assert client.post(url + "/archive", data={"archived": "maybe"}).status_code == 400


def test_delete_goes_to_the_project_with_a_flash(client, acme, world):
    task, project = world["task"], world["project"]
    url = page_url(acme, task["key"])
    assert re.search(
        r'<form[^>]*/delete"\s+data-confirm="Delete', client.get(url).get_data(as_text=True)
    )
    resp = client.post(url + "/delete")
    assert resp.status_code == 303
    assert resp.headers["Location"].endswith(f"/o/{acme.slug}/projects/{project['id']}")
    landing = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert f"{task['key']} “Fix login” was deleted." in landing
    assert client.get(url).status_code == 404
    assert client.get(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).status_code == 404


# -- the JSON API for comments ----------------------------------------------------------


def test_comment_api_edit_delete_and_list_marks_deleted(client, acme, world):
    task = world["task"]
    base = acme.url(f"/tasks/{task['id']}/comments")
    cid = client.post(base, json={"body": "v1"}, headers=acme.headers).get_json()["id"]
    resp = client.patch(f"{base}/{cid}", json={"body": "v2"}, headers=acme.headers)
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["body"] == "v2" and body["edited_at"] and body["deleted"] is False
    assert_problem(
        client.patch(f"{base}/{cid}", json={"body": ""}, headers=acme.headers), 400, "body"
    )
    assert_problem(
        client.patch(f"{base}/{cid}", json={"body": "x" * 20001}, headers=acme.headers), 400, "body"
    )
    assert_problem(
        client.patch(f"{base}/{cid}", json={"body": 5}, headers=acme.headers), 400, "body"
    )
    assert_problem(client.patch(f"{base}/{cid}", json={"text": "x"}, headers=acme.headers), 400)
    bad = client.patch(
        f"{base}/{cid}", data="{", content_type="application/json", headers=acme.headers
    )
    assert_problem(bad, 400)
    assert_problem(
        client.patch(f"{base}/{uuid.uuid4()}", json={"body": "x"}, headers=acme.headers), 404
    )
    assert client.delete(f"{base}/{cid}", headers=acme.headers).status_code == 204
    listed = client.get(base, headers=acme.headers).get_json()
    assert listed == [dict(listed[0], body="", deleted=True)] and listed[0]["deleted_at"]
    assert_problem(client.patch(f"{base}/{cid}", json={"body": "v3"}, headers=acme.headers), 409)
    assert_problem(client.delete(f"{base}/{cid}", headers=acme.headers), 409)


def test_comment_api_other_orgs_ids_are_404(client, acme, globex, world):
    base = acme.url(f"/tasks/{world['task']['id']}/comments")
    cid = client.post(base, json={"body": "mine"}, headers=acme.headers).get_json()["id"]
    assert_problem(client.patch(f"{base}/{cid}", json={"body": "x"}, headers=globex.headers), 404)
    other = globex.url(f"/tasks/{world['task']['id']}/comments/{cid}")
    assert_problem(client.delete(other, headers=globex.headers), 404)


# -- the permission table ---------------------------------------------------------------

ROLES = ["viewer", "commenter", "member", "admin", "agent"]
MEMBER_MSG = "You need the member role in this project to change its tasks."
COMMENT_MSG = "You need at least the commenter role in this project to comment."


@pytest.fixture
def actor(request, client, acme, world):
    """A signed-in person (or an agent's token) with the role named by the test."""
    role = request.param
    project = world["project"]
    if role == "agent":
        agent = create_agent(client, acme, "Helper Bot", [project["id"]])
        return {"role": role, "headers": bearer(agent["token"]), "id": agent["id"]}
    who = add_person(
        client.application,
        acme.org_id,
        f"{role}@acme.test",
        "admin" if role == "admin" else "member",
    )
    if role != "admin":
        set_role(client, acme, project, who.owner_id, role)
    login(client, who.owner_email)
    return {"role": role, "headers": who.headers, "id": str(who.owner_id)}


HTML_ROUTES = {
    # route: {role: status}; a person's session, or the agent's bearer token
    "page": {"viewer": 200, "commenter": 200, "member": 200, "admin": 200},
    "field": {"viewer": 403, "commenter": 403, "member": 200, "admin": 200},
    "archive": {"viewer": 403, "commenter": 403, "member": 303, "admin": 303},
    "delete": {"viewer": 403, "commenter": 403, "member": 303, "admin": 303},
    "comment": {"viewer": 403, "commenter": 200, "member": 200, "admin": 200},
    "edit_own": {"viewer": 403, "commenter": 200, "member": 200, "admin": 200},
    "delete_own": {"viewer": 403, "commenter": 200, "member": 200, "admin": 200},
}


def _own_comment(client, acme, task, actor_id) -> str:
    """A comment by the actor (written directly, so a viewer can 'own' one too)."""
    from workspace.core import comments, tasks
    from workspace.extensions import db

    with client.application.app_context():
        t = tasks.get_task(acme.org_id, uuid.UUID(task["id"]))
        c = comments.add_comment(t, uuid.UUID(actor_id), "by the actor")
        db.session.commit()
        return str(c.id)


@pytest.mark.parametrize("actor", ROLES, indirect=True)
@pytest.mark.parametrize("route", list(HTML_ROUTES))
def test_permission_table_html(client, acme, world, actor, route):
    task = world["task"]
    url = page_url(acme, task["key"])
    cid = _own_comment(client, acme, task, actor["id"])
    calls = {
        "page": lambda h: client.get(url, headers=h),
        "field": lambda h: client.post(
            url + "/fields/priority", data={"priority": "high"}, headers=h
        ),
        "archive": lambda h: client.post(url + "/archive", data={"archived": "true"}, headers=h),
        "delete": lambda h: client.post(url + "/delete", headers=h),
        "comment": lambda h: client.post(url + "/comments", data={"body": "hi"}, headers=h),
        "edit_own": lambda h: client.post(f"{url}/comments/{cid}", data={"body": "new"}, headers=h),
        "delete_own": lambda h: client.post(f"{url}/comments/{cid}/delete", headers=h),
    }
    if actor["role"] == "agent":
        # HTML pages take a browser session only: the agent's token opens none of them.
        client.post("/signout")
        resp = calls[route](actor["headers"])
        assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
        return
    resp = calls[route](HX)
    expected = HTML_ROUTES[route][actor["role"]]
    assert resp.status_code == expected, resp.get_data(as_text=True)[:500]
    if expected == 403:
        message = COMMENT_MSG if route in ("comment", "edit_own", "delete_own") else MEMBER_MSG
        assert message in resp.get_data(as_text=True)
    if route == "delete":
        gone = client.get(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).status_code
        assert gone == (404 if expected == 303 else 200)
        return
    rows = activity(client, acme, task)
    wrote = [a for a in rows if a["actor_id"] == actor["id"] and a["field"] != "comment"]
    if route == "comment":
        wrote = [a for a in rows if a["actor_id"] == actor["id"] and a["field"] == "comment"][1:]
    assert bool(wrote) == (expected in (200, 303) and route != "page")


def test_read_only_roles_see_values_not_controls(client, acme, world):
    viewer = add_person(client.application, acme.org_id, "vic@acme.test")
    set_role(client, acme, world["project"], viewer.owner_id, "viewer")
    login(client, viewer.owner_email)
    html = client.get(page_url(acme, world["task"]["key"])).get_data(as_text=True)
    assert "/fields/" not in html and "/archive" not in html and "/delete" not in html
    assert 'name="body"' not in html and "needs the commenter role" in html
    assert "Priority" in html and "Fix login" in html


API_ROUTES = {
    "list": {"viewer": 200, "commenter": 200, "member": 200, "admin": 200, "agent": 200},
    "add": {"viewer": 403, "commenter": 201, "member": 201, "admin": 201, "agent": 201},
    "edit_own": {"viewer": 403, "commenter": 200, "member": 200, "admin": 200, "agent": 200},
    "delete_own": {"viewer": 403, "commenter": 204, "member": 204, "admin": 204, "agent": 204},
    "edit_others": {"viewer": 403, "commenter": 403, "member": 403, "admin": 403, "agent": 403},
    "delete_others": {"viewer": 403, "commenter": 403, "member": 403, "admin": 204, "agent": 403},
}


@pytest.mark.parametrize("actor", ROLES, indirect=True)
@pytest.mark.parametrize("route", list(API_ROUTES))
def test_permission_table_api(client, acme, world, actor, route):
    task = world["task"]
    base = acme.url(f"/tasks/{task['id']}/comments")
    own = _own_comment(client, acme, task, actor["id"])
    others = client.post(base, json={"body": "owner's"}, headers=acme.headers).get_json()["id"]
    h = actor["headers"]
    calls = {
        "list": lambda: client.get(base, headers=h),
        "add": lambda: client.post(base, json={"body": "hi"}, headers=h),
        "edit_own": lambda: client.patch(f"{base}/{own}", json={"body": "new"}, headers=h),
        "delete_own": lambda: client.delete(f"{base}/{own}", headers=h),
        "edit_others": lambda: client.patch(f"{base}/{others}", json={"body": "x"}, headers=h),
        "delete_others": lambda: client.delete(f"{base}/{others}", headers=h),
    }
    resp = calls[route]()
    expected = API_ROUTES[route][actor["role"]]
    if expected == 403:
        assert_problem(resp, 403)
        detail = resp.get_json()["detail"]
        if actor["role"] == "viewer" and route != "list":
            assert detail == COMMENT_MSG
        elif route == "edit_others":
            assert detail == "Only the comment's author can edit it."
        else:
            assert detail == "Only the comment's author or an org admin can delete it."
    else:
        assert resp.status_code == expected, resp.get_data(as_text=True)


def test_an_agent_without_a_project_grant_reads_but_cannot_comment(client, acme, world):
    agent = create_agent(client, acme, "Outsider Bot")
    base = acme.url(f"/tasks/{world['task']['id']}/comments")
    assert client.get(base, headers=bearer(agent["token"])).status_code == 200
    resp = client.post(base, json={"body": "hi"}, headers=bearer(agent["token"]))
    assert_problem(resp, 403)
    assert resp.get_json()["detail"] == COMMENT_MSG


def test_an_agents_changes_and_comments_carry_an_agent_badge(client, acme, world):
    task = world["task"]
    agent = create_agent(client, acme, "Triage Bot", [world["project"]["id"]])
    h = bearer(agent["token"])
    resp = client.patch(acme.url(f"/tasks/{task['id']}"), json={"priority": "high"}, headers=h)
    assert resp.status_code == 200
    resp = client.post(
        acme.url(f"/tasks/{task['id']}/comments"), json={"body": "Sorted"}, headers=h
    )
    assert resp.status_code == 201
    html = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    badge = '<strong>Triage Bot</strong> <span class="badge badge-agent">agent</span>'
    assert html.count(badge) == 2  # the change and the comment
    assert "changed the priority from None to High" in text_of(html)


def test_commenting_subscribes_and_the_button_says_so_without_a_reload(client, acme, world):
    """The comment's answer replaced the discussion only: the button read Subscribe
    until a reload, though commenting had subscribed the reader."""
    task, project, mia = world["task"], world["project"], world["mia"]
    set_role(client, acme, project, mia.owner_id, "member")
    login(client, mia.owner_email)
    shown = client.get(page_url(acme, task["key"])).get_data(as_text=True)
    assert re.search(r'id="subscribe-button"[^>]*>Subscribe<', shown)
    resp = client.post(page_url(acme, task["key"], "/comments"), data={"body": "On it"},
                       headers=HX)  # fmt: skip
    html = resp.get_data(as_text=True)
    assert 'id="task-follow" hx-swap-oob="true"' in html
    assert re.search(r'id="subscribe-button"[^>]*>Unsubscribe<', html)
    # A field edit answers with the button too (being assigned subscribes).
    field = client.post(page_url(acme, task["key"], "/fields/priority"),
                        data={"priority": "high"}, headers=HX)  # fmt: skip
    assert 'id="task-follow" hx-swap-oob="true"' in field.get_data(as_text=True)
    # The full page has one button, not a second out-of-band copy.
    assert (
        client.get(page_url(acme, task["key"])).get_data(as_text=True).count('id="task-follow"')
        == 1
    )
