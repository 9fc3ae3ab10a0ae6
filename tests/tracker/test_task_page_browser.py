"""A person in a real browser opens a task from the org home, edits every field in
place (no full reload), comments, edits the comment, and reads the timeline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import (
    add_person,
    browser_sign_in,
    login,
    make_org,
    new_task,
    setup_project,
)

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots")
# Visible controls in <main> without a visible <label> (as tests/test_accessibility.py).
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'main input:not([type=hidden]), main select, main textarea'))
  .filter(el => el.getClientRects().length)
  .filter(el => !Array.from(el.labels || []).some(
    l => l.getClientRects().length && l.textContent.trim() && getComputedStyle(l).clip === 'auto'))
  .map(el => el.name || el.id)"""


@pytest.fixture
def world(live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    add_person(app, acme.org_id, "mia@acme.test")
    client = app.test_client()
    project, _ = setup_project(client, acme)
    base = acme.url(f"/projects/{project['id']}")
    for kind, name in (("cycles", "Sprint 1"), ("modules", "Auth")):
        resp = client.post(f"{base}/{kind}", json={"name": name}, headers=acme.headers)
        assert resp.status_code == 201
    task = new_task(client, acme, project, title="Fix login", assignee_id=str(acme.owner_id))
    return live_server, acme, task


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_edit_every_field_in_place_and_discuss(page, world):
    server, acme, task = world
    browser_sign_in(page, server.url, acme.owner_email)
    # The org home lists "my tasks" with their keys linked to the task page.
    page.goto(f"{server.url}/o/acme/")
    page.get_by_role("link", name=task["key"], exact=True).first.click()
    expect(page).to_have_url(re.compile(rf"/o/acme/tasks/{task['key']}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Fix login")
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.evaluate("window.__stillHere = true")
    timeline = page.locator("#timeline")

    page.get_by_role("button", name="Edit title").click()
    page.locator("main").get_by_label("Title", exact=True).fill("")
    page.get_by_role("button", name="Save title").click()
    expect(page.locator("#f-title-error")).to_have_text("A task needs a title.")
    page.locator("main").get_by_label("Title", exact=True).fill("Fix the login form")
    page.get_by_role("button", name="Save title").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Fix the login form")
    expect(timeline).to_contain_text("renamed the task from “Fix login” to “Fix the login form”")

    page.get_by_role("button", name="Edit description").click()
    page.get_by_role("textbox", name="Description", exact=True).fill(
        "Steps: **click** [docs](https://d.example)"
    )
    page.get_by_role("button", name="Save description").click()
    expect(page.locator("#field-description .markdown strong")).to_have_text("click")
    expect(page.locator("#field-description .markdown a")).to_have_attribute(
        "rel", "nofollow noopener noreferrer"
    )
    expect(timeline).to_contain_text("updated the description")

    changes = [
        ("State", "In Progress", "changed the state from Backlog to In Progress"),
        ("Priority", "Urgent", "changed the priority from None to Urgent"),
        ("Kind", "Bug", "changed the kind from Task to Bug"),
        ("Cycle", "Sprint 1", "changed the cycle from none to Sprint 1"),
        ("Module", "Auth", "changed the module from none to Auth"),
    ]
    for label, option, words in changes:
        page.get_by_label(label, exact=True).select_option(label=option)
        expect(timeline).to_contain_text(words)
        expect(page.get_by_label(label, exact=True)).to_have_value(re.compile(".+"))

    # Arrowing through a closed select saves nothing on the way (Done was a completion
    # and a notification); Escape puts the saved state back, leaving the field saves.
    state = page.get_by_label("State", exact=True)
    names = state.locator("option").all_inner_texts()
    state_changes = timeline.get_by_text(re.compile("changed the state"))
    state.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(400)  # what a save would take to show
    expect(state_changes).to_have_count(1)
    page.keyboard.press("Escape")
    expect(state).to_have_value(state.locator("option[selected]").get_attribute("value"))
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    moved_to = names[names.index("In Progress") + 2]
    expect(timeline).to_contain_text(f"changed the state from In Progress to {moved_to}")
    expect(state_changes).to_have_count(2)

    # A pick from the select's opened list (Alt+Down, Down, Enter) is a choice: saved
    # at once, like a mouse pick (the list takes the Enter; the page never sees it).
    kind = page.get_by_label("Kind", exact=True)
    kind_changes = timeline.get_by_text(re.compile("changed the kind"))
    kind.focus()
    page.keyboard.press("Alt+ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(kind_changes).to_have_count(2)

    # The assignee is one searchable picker: typing narrows the people, a click assigns.
    page.get_by_role("combobox", name="Assignee").fill("mi")
    page.get_by_role("option", name="Mia", exact=True).click()
    expect(timeline).to_contain_text("reassigned from Acme Owner to Mia")

    page.get_by_label("Due date", exact=True).fill("2026-03-01")
    expect(timeline).to_contain_text("changed the due date from none to 1 Mar 2026")
    # Typed digit by digit, a date saves once, whole, on Enter (or when the field is
    # left): not at each step (2026-01-01 after the month, 0002-01-20 after a digit).
    page.get_by_label("Due date", exact=True).focus()
    page.keyboard.type("01202027")
    page.keyboard.press("Enter")
    expect(timeline).to_contain_text("changed the due date from 1 Mar 2026 to 20 Jan 2027")
    expect(timeline.get_by_text(re.compile("changed the due date"))).to_have_count(2)

    page.get_by_label("Add a comment").fill("Reproduced on **Firefox**")
    page.get_by_role("button", name="Comment", exact=True).click()
    comment = page.locator(".tl-comment", has_text="Reproduced on")
    expect(comment.locator(".tl-body strong")).to_have_text("Firefox")
    expect(page.get_by_label("Add a comment")).to_have_value("")
    # Escape closes an edit and drops what was typed, back at its Edit button;
    # Ctrl+Enter saves one, and the focus comes back to that comment's Edit button.
    comment.get_by_text("Edit", exact=True).click()
    comment.get_by_label("Edit your comment").fill("Discard me")
    page.once("dialog", lambda d: d.accept())  # "Discard your changes?"
    comment.get_by_label("Edit your comment").press("Escape")
    expect(comment.get_by_label("Edit your comment")).to_be_hidden()
    expect(comment.locator("summary", has_text="Edit")).to_be_focused()
    comment.get_by_text("Edit", exact=True).click()
    expect(comment.get_by_label("Edit your comment")).to_have_value("Reproduced on **Firefox**")
    comment.get_by_label("Edit your comment").fill("Reproduced on Firefox and Chromium")
    comment.get_by_label("Edit your comment").press("Control+Enter")
    comment = page.locator(".tl-comment", has_text="Chromium")
    expect(comment).to_contain_text("edited")
    expect(comment.locator("summary", has_text="Edit")).to_be_focused()

    # Every line says who made it, and they come in the order they happened.
    lines = page.locator("#timeline > li")
    expect(lines).to_have_count(14)
    for i in range(13):
        expect(lines.nth(i)).to_contain_text("Acme Owner")
    expect(lines.first).to_contain_text("created the task")
    expect(lines.last).to_contain_text("Reproduced on Firefox and Chromium")
    assert page.evaluate("window.__stillHere") is True
    assert failed == []
    _shot(page, "task-page-1280.png")

    # At phone width the details stack under the title, above the description.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    title = page.get_by_role("heading", level=1).bounding_box()
    side = page.locator(".task-side").bounding_box()
    body = page.locator("#field-description").bounding_box()
    assert title["y"] < side["y"] < body["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(page, "task-page-390.png")


def test_archive_and_delete_ask_first(page, world):
    server, acme, task = world
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(f"{server.url}/o/acme/tasks/{task['key']}")
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    page.get_by_role("button", name="Archive").click()
    expect(page.locator(".archived-banner")).to_contain_text("This task is out of the project")
    assert questions and questions[0].startswith(f"Archive {task['key']}?")
    _shot(page, "task-page-archived.png")
    page.get_by_role("button", name="Restore").click()
    expect(page.locator(".archived-banner")).to_have_count(0)
    page.get_by_role("button", name="Delete task").click()
    expect(page).to_have_url(re.compile(r"/o/acme/projects/"))
    expect(page.locator("#flash-area")).to_contain_text(f"{task['key']} “Fix login” was deleted.")


def test_the_page_passes_axe_for_editors_and_readers(page, world):
    server, acme, task = world
    client = server.app.test_client()
    login(client, acme.owner_email)
    client.post(f"/o/acme/tasks/{task['key']}/comments", data={"body": "A comment"})
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(f"{server.url}/o/acme/tasks/{task['key']}")
    page.get_by_role("button", name="Edit title").click()
    page.get_by_role("button", name="Edit description").click()
    page.locator(".tl-comment").get_by_text("Edit", exact=True).click()
    assert axe_problems(page) == []
    assert page.evaluate(UNLABELLED) == []
    # A keyboard user sees where the focus is on the field controls.
    page.get_by_label("Priority", exact=True).focus()
    outline = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return s.outlineStyle !== 'none' || s.boxShadow !== 'none'; }"
    )
    assert outline is True
    # Mia is a plain org member without a project role: she reads, with no controls.
    page.get_by_role("button", name="Sign out").click()
    browser_sign_in(page, server.url, "mia@acme.test")
    page.goto(f"{server.url}/o/acme/tasks/{task['key']}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Fix login")
    # Reading is enough to follow the task: Subscribe is the one form she gets.
    expect(page.locator("main form")).to_have_count(1)
    expect(page.locator("main form").get_by_role("button")).to_have_text("Subscribe")
    assert axe_problems(page) == []
