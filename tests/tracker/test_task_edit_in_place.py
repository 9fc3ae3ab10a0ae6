"""Editing in place on the task page (docs/tasks.md#editing-in-place), without a
browser: the no-JavaScript paths of the title and description forms, the description
preview route and its permission table, bare URLs becoming links (and nothing unsafe
doing so), and the one way a due date is written."""

from __future__ import annotations

from datetime import date

import pytest

from tests.factories import (
    bearer,
    create_agent,
    login,
    new_task,
    project_roles,
    setup_project,
)
from workspace.core.dates import day, iso_day
from workspace.tracker.task_page.markdown import render_markdown

HX = {"HX-Request": "true"}
REL = 'rel="nofollow noopener noreferrer"'


# -- links ------------------------------------------------------------------------------


def test_bare_http_and_https_urls_become_safe_links():
    html = render_markdown("See https://docs.example/a?b=1. and http://x.example")
    assert f'<a href="https://docs.example/a?b=1" {REL}>https://docs.example/a?b=1</a>.' in html
    assert f'<a href="http://x.example" {REL}>http://x.example</a>' in html


@pytest.mark.parametrize(
    "text",
    [
        "javascript:alert(1)",
        "JAVASCRIPT://example.com/%0aalert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox(1)",
        "ftp://files.example/a",
        "//evil.example/path",
        "www.example.com",  # no scheme typed: no guessing
        "someone@example.com",
    ],
)
def test_nothing_but_http_https_is_linked(text):
    html = render_markdown(f"go {text} now")
    assert "<a " not in html, html


def test_linkify_leaves_code_and_html_alone():
    html = render_markdown("`https://code.example` and https://x.example/<script>alert(1)</script>")
    assert "<code>https://code.example</code>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_mentions_read_apart_from_the_text_but_not_in_links_code_or_addresses():
    html = render_markdown("Ask @mia, then @bob@acme.test. Mail x@acme.test.")
    assert '<span class="mention">@mia</span>,' in html
    assert '<span class="mention">@bob@acme.test</span>.' in html
    assert "Mail x@acme.test." in html  # an address is not a mention
    html = render_markdown("`@mia` [@mia](https://x.example) https://x.example/@mia @<b>x</b>")
    assert "mention" not in html and "<code>@mia</code>" in html
    assert "<b>" not in html


# -- dates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (date(2026, 11, 27), "27 Nov 2026"),
        (date(2026, 3, 1), "1 Mar 2026"),
        (date(1999, 12, 31), "31 Dec 1999"),
    ],
)
def test_day_writes_one_unambiguous_format(value, shown):
    assert day(value) == shown


def test_day_of_nothing_and_of_history_text():
    assert day(None) == "" and day(None, "—") == "—"
    assert iso_day("2026-03-01") == "1 Mar 2026"
    assert iso_day(None) == "none" and iso_day("") == "none"
    assert iso_day("not a date") == "not a date"


def test_every_page_writes_a_due_date_the_same_way(client, app, acme):
    project, _ = setup_project(client, acme)
    viewer = project_roles(client, app, acme, project)["viewer"]
    task = new_task(
        client,
        acme,
        project,
        title="Ship it",
        assignee_id=str(acme.owner_id),
        due_date="2030-11-27",
    )
    login(client, acme.owner_email)
    pages = [
        f"/o/{acme.slug}/",
        f"/o/{acme.slug}/my-work",
        f"/o/{acme.slug}/projects/{project['id']}",
        f"/o/{acme.slug}/projects/{project['id']}?view=board",
    ]
    for url in pages:
        html = client.get(url).get_data(as_text=True)
        assert "27 Nov 2030" in html, url
        assert "2030-11-27<" not in html and "Nov 27" not in html, url
    # An editor's task page has the native date picker (the browser writes its value);
    # a reader's shows the date as text, the same way.
    editor = client.get(f"/o/{acme.slug}/tasks/{task['key']}").get_data(as_text=True)
    assert '<input type="date" id="f-due_date" name="due_date" value="2030-11-27"' in editor
    login(client, viewer.owner_email)
    reader = client.get(f"/o/{acme.slug}/tasks/{task['key']}").get_data(as_text=True)
    assert '<time datetime="2030-11-27">27 Nov 2030</time>' in reader


# -- the title and description without JavaScript --------------------------------------


@pytest.fixture
def world(client, acme):
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, title="Fix login", description="Old words")
    login(client, acme.owner_email)
    return project, task


def _url(org, task, path=""):
    return f"/o/{org.slug}/tasks/{task['key']}{path}"


def test_edit_links_open_the_form_on_the_page(client, acme, world):
    _, task = world
    html = client.get(_url(acme, task)).get_data(as_text=True)
    assert html.count("data-inplace-open") == 4  # title, its Edit, description, its Edit
    assert f'href="{_url(acme, task)}?edit=title#field-title"' in html
    assert "Edit title</summary>" not in html and "Edit description</summary>" not in html
    opened = client.get(_url(acme, task, "?edit=title")).get_data(as_text=True)
    title_form = opened.split('id="field-title"')[1].split('id="field-description"')[0]
    assert 'class="task-field-form inplace-form"' in title_form
    assert "hidden>" not in title_form.split("<form")[1].split(">")[0] + ">"
    assert client.get(_url(acme, task, "?edit=bogus")).status_code == 400


def test_preview_renders_the_draft_and_saves_nothing(client, acme, world):
    _, task = world
    draft = "**bold** https://x.example <script>alert(1)</script>"
    resp = client.post(_url(acme, task, "/preview"), data={"description": draft}, headers=HX)
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert "<strong>bold</strong>" in html and f'href="https://x.example" {REL}' in html
    assert "<script>" not in html
    assert "Old words" in client.get(_url(acme, task)).get_data(as_text=True)
    empty = client.post(_url(acme, task, "/preview"), data={"description": ""}, headers=HX)
    assert "Nothing to preview yet." in empty.get_data(as_text=True)
    # Without JavaScript: the page, the draft still in its box, the preview under it.
    page = client.post(_url(acme, task, "/preview"), data={"description": draft})
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "<strong>bold</strong>" in body
    assert "**bold** https://x.example &lt;script&gt;" in body


def test_preview_refuses_what_save_would_refuse(client, acme, world):
    _, task = world
    long = "x" * 20001
    resp = client.post(_url(acme, task, "/preview"), data={"description": long}, headers=HX)
    assert resp.status_code == 400
    assert "20000" in resp.get_data(as_text=True)
    saved = client.post(_url(acme, task, "/fields/description"), data={"description": long})
    assert saved.status_code == 400
    page = client.post(_url(acme, task, "/preview"), data={"description": long})
    assert page.status_code == 400 and 'aria-invalid="true"' in page.get_data(as_text=True)


# -- the preview's permission table -----------------------------------------------------


def test_preview_permission_table(client, app, acme, globex):
    """A project member previews; a viewer is refused (403); an agent's token opens no
    page (sent to sign in); another org's member learns nothing (404)."""
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, title="Fix login")
    people = project_roles(client, app, acme, project)
    agent = create_agent(client, acme, project_ids=[project["id"]])
    url = _url(acme, task, "/preview")
    form = {"description": "_hi_"}
    expected = {"member": 200, "viewer": 403}
    for role, person in people.items():
        login(client, person.owner_email)
        resp = client.post(url, data=form, headers=HX)
        assert resp.status_code == expected[role], (role, resp.get_data(as_text=True)[:300])
        client.post("/signout")
    login(client, globex.owner_email)
    assert client.post(url, data=form, headers=HX).status_code == 404
    fresh = app.test_client()
    resp = fresh.post(url, data=form, headers={**HX, **bearer(agent["token"])})
    assert resp.status_code in (302, 303) and "/signin" in resp.headers["Location"]
