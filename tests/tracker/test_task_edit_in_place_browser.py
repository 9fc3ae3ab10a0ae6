"""Editing where you read, in a real browser (docs/tasks.md#editing-in-place): the
title and the description by keyboard and by mouse, Escape cancelling, the Markdown
preview, the assignee picked in its combobox by keyboard (and unassigned), and axe at
1440 and 390 px with the editors open."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import add_person, browser_sign_in, make_org, new_task, setup_project

pytestmark = pytest.mark.browser


@pytest.fixture
def world(live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    add_person(app, acme.org_id, "mia@acme.test")
    client = app.test_client()
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, title="Fix login", description="Old words")
    return live_server, acme, task


@pytest.fixture
def task_page(page, world):
    server, acme, task = world
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(f"{server.url}/o/acme/tasks/{task['key']}")
    # task.js has run once the Edit links are buttons.
    expect(page.get_by_role("button", name="Edit title")).to_be_visible()
    return page


def test_title_by_keyboard_enter_saves_and_escape_cancels(task_page):
    page = task_page
    heading = page.get_by_role("heading", level=1)
    edit = page.get_by_role("button", name="Edit title")
    title = page.locator("main").get_by_label("Title", exact=True)
    edit.focus()
    page.keyboard.press("Enter")
    expect(title).to_be_focused()
    expect(heading).to_be_hidden()
    page.keyboard.press("Control+A")
    page.keyboard.type("Fix the login form")
    page.keyboard.press("Enter")
    expect(heading).to_have_text("Fix the login form")
    expect(page.locator("#timeline")).to_contain_text("renamed the task from “Fix login”")
    expect(page.get_by_role("button", name="Edit title")).to_be_focused()
    # Space opens it too; Escape puts the saved title back and the focus on Edit.
    page.keyboard.press(" ")
    expect(title).to_be_focused()
    page.keyboard.type(" and more")
    page.keyboard.press("Escape")
    expect(heading).to_have_text("Fix the login form")
    expect(title).to_be_hidden()
    expect(page.get_by_role("button", name="Edit title")).to_be_focused()
    page.keyboard.press("Enter")
    expect(title).to_have_value("Fix the login form")


def test_title_by_mouse_and_a_refusal_keeps_the_box_open(task_page):
    page = task_page
    heading = page.get_by_role("heading", level=1)
    title = page.locator("main").get_by_label("Title", exact=True)
    heading.click()
    expect(title).to_be_focused()
    title.fill("")
    page.get_by_role("button", name="Save title").click()
    expect(page.locator("#f-title-error")).to_have_text("A task needs a title.")
    expect(title).to_be_focused()
    title.fill("Renamed by mouse")
    page.get_by_role("button", name="Save title").click()
    expect(heading).to_have_text("Renamed by mouse")
    heading.click()
    page.locator("#field-title").get_by_role("button", name="Cancel").click()
    expect(heading).to_have_text("Renamed by mouse")


def test_description_by_keyboard_with_preview_and_ctrl_enter(task_page):
    page = task_page
    box = page.get_by_role("textbox", name="Description", exact=True)
    preview = page.get_by_role("region", name="Preview of the description")
    page.get_by_role("button", name="Edit description").focus()
    page.keyboard.press("Enter")
    expect(box).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type("Steps: **click** then see https://docs.example/a")
    page.get_by_role("button", name="Preview").focus()
    page.keyboard.press("Enter")
    expect(preview.locator("strong")).to_have_text("click")
    link = preview.get_by_role("link", name="https://docs.example/a")
    expect(link).to_have_attribute("rel", "nofollow noopener noreferrer")
    expect(box).to_be_hidden()
    expect(page.get_by_role("button", name="Preview")).to_have_attribute("aria-pressed", "true")
    # Nothing was saved by the preview.
    expect(page.locator("#field-description .inplace-view")).to_contain_text("Old words")
    page.get_by_role("button", name="Write").focus()
    page.keyboard.press("Enter")
    expect(box).to_be_visible()
    box.focus()
    page.keyboard.press("Control+Enter")
    view = page.locator("#field-description .inplace-view .markdown")
    expect(view.locator("strong")).to_have_text("click")
    expect(view.get_by_role("link", name="https://docs.example/a")).to_be_visible()
    expect(page.locator("#timeline")).to_contain_text("updated the description")
    expect(page.get_by_role("button", name="Edit description")).to_be_focused()


def test_description_by_mouse_and_escape_cancels(task_page):
    page = task_page
    box = page.get_by_role("textbox", name="Description", exact=True)
    page.locator("#field-description .inplace-view .markdown").click()
    expect(box).to_be_focused()
    box.fill("Thrown away")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#f-description-preview")).to_contain_text("Thrown away")
    # Changed words are not thrown away unasked: dismissed, the draft stays open.
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.keyboard.press("Escape")
    expect(page.locator("#f-description-preview")).to_contain_text("Thrown away")
    assert asked == ["Discard your changes? What you typed is lost."]
    # Leaving the page asks the browser's own question.
    page.once("dialog", lambda d: (asked.append(d.type), d.dismiss()))
    page.evaluate("location.reload()")
    expect(page.locator("#f-description-preview")).to_contain_text("Thrown away")
    assert asked[-1] == "beforeunload"
    page.once("dialog", lambda d: d.accept())
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()
    expect(page.locator("#field-description .inplace-view .markdown")).to_have_text("Old words")
    expect(page.get_by_role("button", name="Edit description")).to_be_focused()
    page.get_by_role("button", name="Edit description").click()
    expect(box).to_have_value("Old words")  # the draft went with Escape
    box.fill("Kept by mouse")
    page.get_by_role("button", name="Save description").click()
    expect(page.locator("#field-description .inplace-view .markdown")).to_have_text("Kept by mouse")


def test_assignee_picked_and_cleared_by_keyboard(task_page):
    page = task_page
    combo = page.get_by_role("combobox", name="Assignee")
    people = page.get_by_role("listbox", name="People to assign")
    timeline = page.locator("#timeline")
    expect(page.locator("#f-assignee")).to_be_hidden()  # the no-JS select gives way
    combo.focus()
    page.keyboard.type("mi")
    expect(combo).to_have_attribute("aria-expanded", "true")
    expect(people.get_by_role("option")).to_have_text(["Mia"])
    expect(people.get_by_role("option", name="Mia")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Enter")
    expect(timeline).to_contain_text("assigned Mia")
    combo = page.get_by_role("combobox", name="Assignee")
    expect(combo).to_be_focused()
    expect(combo).to_have_value("Mia")
    # Down lists everyone, the current one highlighted; Escape closes, changing nothing.
    page.keyboard.press("ArrowDown")
    expect(people.get_by_role("option", name=re.compile("^Mia"))).to_have_attribute(
        "aria-selected", "true"
    )
    page.keyboard.press("Escape")
    expect(combo).to_have_attribute("aria-expanded", "false")
    expect(combo).to_have_value("Mia")
    # A blank box offers Unassigned first.
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    expect(people.get_by_role("option")).to_have_text(["Unassigned", "Acme Owner", "Mia"])
    expect(people.get_by_role("option").last).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowDown")  # from the last, Down wraps to the first
    expect(people.get_by_role("option", name="Unassigned")).to_have_attribute(
        "aria-selected", "true"
    )
    page.keyboard.press("Enter")
    expect(timeline).to_contain_text("unassigned Mia")
    expect(page.get_by_role("combobox", name="Assignee")).to_have_value("")


@pytest.mark.parametrize("width", [1440, 390])
def test_axe_with_the_editors_open(task_page, width):
    page = task_page
    page.set_viewport_size({"width": width, "height": 900})
    assert axe_problems(page) == []
    page.get_by_role("button", name="Edit title").click()
    page.get_by_role("button", name="Edit description").click()
    page.get_by_role("textbox", name="Description", exact=True).fill("_hi_ https://x.example")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#f-description-preview em")).to_have_text("hi")
    page.get_by_role("combobox", name="Assignee").focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("listbox", name="People to assign")).to_be_visible()
    assert axe_problems(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
