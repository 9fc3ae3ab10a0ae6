"""The command menu in a real browser (docs/command_menu.md): by keyboard (Ctrl-K, a key,
words, arrows, Enter, Escape, Tab, "C", "?") and by mouse and at phone width, with
axe-core finding nothing serious while it is open."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import browser_sign_in, create_project, login, make_org, new_task

pytestmark = pytest.mark.browser


@pytest.fixture
def site(live_server):
    app = live_server.app
    org = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    login(client, org.owner_email)
    project = create_project(client, org)
    new_task(client, org, project, title="Fix login flow")
    new_task(client, org, project, title="Write the release notes")
    return live_server, org, project


def test_the_menu_by_keyboard_alone(page, site):
    server, org, project = site
    browser_sign_in(page, server.url, org.owner_email, org.password)
    page.goto(f"{server.url}/o/{org.slug}/projects/{project['id']}")
    menu = page.get_by_role("dialog", name="Command menu")
    box = page.get_by_role("combobox", name=re.compile("Search tasks"))
    results = page.get_by_role("listbox", name="Results")

    # Ctrl-K works even while typing in a field; an exact key, then Enter, opens it.
    page.locator("#task-form-box > summary").click()  # the create form is folded
    page.get_by_label("Task title").focus()
    page.keyboard.press("Control+k")
    expect(menu).to_be_visible()
    expect(box).to_be_focused()
    page.keyboard.type("web-2")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/tasks/WEB-2$"))
    # The URL changes before the new page's deferred script has run; CI once pressed
    # Ctrl-K in between, and Chromium kept the key.
    page.wait_for_load_state("load")

    # Words; arrows move the highlighted option; Escape gives focus back.
    opener = page.get_by_role("link", name="Projects").first
    opener.focus()
    page.keyboard.press("Control+k")
    expect(box).to_be_focused()
    # With nothing typed, what was opened last comes first.
    first = results.get_by_role("option").first
    expect(first).to_contain_text("WEB-2 Write the release notes")
    expect(first).to_contain_text("Recent")
    page.keyboard.type("login")
    option = results.get_by_role("option", name=re.compile("WEB-1 Fix login flow"))
    expect(option).to_be_visible()
    expect(page.locator("#command-menu-status")).to_have_text(re.compile(r"^\d+ results?$"))
    expect(option).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", option.get_attribute("id"))
    count = results.get_by_role("option").count()
    if count > 1:
        page.keyboard.press("ArrowDown")
        expect(option).to_have_attribute("aria-selected", "false")
        page.keyboard.press("ArrowUp")
        expect(option).to_have_attribute("aria-selected", "true")
    for _ in range(4):  # Tab stays inside the open dialog
        page.keyboard.press("Tab")
        assert page.evaluate(
            "document.getElementById('command-menu').contains(document.activeElement)"
        )
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(opener).to_be_focused()
    # Opened from the page itself (nothing focused: a page just loaded), Escape leaves
    # the focus on the Search button that opens the menu, not at the top of the page.
    page.reload()
    page.wait_for_load_state("load")
    page.keyboard.press("Control+k")
    expect(box).to_be_focused()
    expect(page.locator("#command-menu-status")).to_have_text(re.compile(r"\d+ results?$"))
    page.keyboard.press("Escape")
    expect(page.locator("[data-command-menu-open]")).to_be_focused()

    # "?" lists the shortcuts.
    page.keyboard.press("?")
    shortcuts = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(shortcuts).to_contain_text("Create a task")
    expect(shortcuts).to_contain_text("Open the command menu")
    page.keyboard.press("Escape")
    expect(shortcuts).to_be_hidden()

    # "C" is a letter while typing, and "create task" anywhere else.
    page.goto(f"{server.url}/o/{org.slug}/projects/{project['id']}")
    page.locator("#task-form-box > summary").click()  # the create form is folded
    page.get_by_label("Task title").focus()
    page.keyboard.type("c")
    expect(menu).to_be_hidden()
    page.locator("main h1").first.click()
    page.keyboard.press("c")
    create = page.get_by_role("dialog", name="Create task")
    expect(create).to_be_visible()
    expect(create.get_by_label("Project", exact=True)).to_have_value(re.compile(project["id"]))
    expect(create.get_by_label("Title", exact=True)).to_be_focused()
    page.keyboard.type("Made from the command menu")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/tasks/WEB-3$"))
    expect(page.locator("main")).to_contain_text("Made from the command menu")


@pytest.mark.parametrize("width", [1440, 390])
def test_the_menu_by_mouse_with_no_serious_axe_finding(browser, site, width):
    server, org, project = site
    context = browser.new_context(viewport={"width": width, "height": 844})
    try:
        page = context.new_page()
        browser_sign_in(page, server.url, org.owner_email, org.password)
        page.wait_for_load_state()  # the menu's deferred script has run
        button = page.get_by_role("button", name="Search…")
        expect(button).to_be_visible()
        assert page.locator("html").evaluate("el => el.scrollWidth") <= width
        button.click()
        menu = page.get_by_role("dialog", name="Command menu")
        expect(menu).to_be_visible()
        page.mouse.click(4, 830)  # the backdrop, below and beside the dialog
        expect(menu).to_be_hidden()
        expect(button).to_be_focused()
        button.click()
        expect(menu).to_be_visible()
        page.get_by_role("combobox").fill("web")
        option = page.get_by_role("option", name=re.compile("^Project Web App"))
        expect(option).to_be_visible()
        assert axe_problems(page) == []
        option.click()
        expect(page).to_have_url(re.compile(rf"/projects/{project['id']}$"))
        # The new page's deferred script listens for "?" only once it has run (CI
        # once pressed it first, at 390 px on PostgreSQL).
        page.wait_for_load_state("load")
        page.keyboard.press("?")
        expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
        assert axe_problems(page) == []
        page.get_by_role("button", name="Close").click()
        expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_hidden()
    finally:
        context.close()


def test_the_menu_closed_and_opened_again_at_once_still_lists(page, site):
    """A close event is queued; on a slow machine the menu can be open again before it
    runs. It once stopped the new opening's first search, and the list stayed empty."""
    server, org, project = site
    browser_sign_in(page, server.url, org.owner_email, org.password)
    page.goto(f"{server.url}/o/{org.slug}/projects/{project['id']}")
    menu = page.get_by_role("dialog", name="Command menu")
    page.keyboard.press("Control+k")
    expect(menu).to_be_visible()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    # Close and open again in one task, so the close event is dispatched after the open;
    # the earlier opening's list is cleared so only the new search can fill it.
    page.evaluate(
        """() => {
            document.getElementById("command-menu-list").replaceChildren();
            document.getElementById("command-menu").showModal();
            document.getElementById("command-menu").close();
            document.dispatchEvent(new KeyboardEvent("keydown", {key: "k", ctrlKey: true}));
        }"""
    )
    expect(menu).to_be_visible()
    options = page.get_by_role("listbox", name="Results").get_by_role("option")
    expect(options.first).to_contain_text("Web App")
