"""Saved views in a real browser (docs/saved_views.md): the list's first row shows
above the fold at 1440x900 and at 390 px (the filter and create forms are folded);
a view is saved by keyboard and by mouse, opened from its tab, renamed and deleted
(after the confirmation); the list is grouped by keyboard and saved grouped; axe-core
finds nothing serious or critical at 1440 and 390 px, a grouped saved view open and
its forms unfolded."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import browser_sign_in, make_org, new_task, setup_project

pytestmark = pytest.mark.browser


@pytest.fixture
def world(live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    project, _ = setup_project(client, acme)
    new_task(client, acme, project, title="Urgent login bug", priority="urgent")
    new_task(client, acme, project, title="Low docs chore", priority="low")
    return live_server, acme, project


def _project_url(server, acme, project, query: str = "") -> str:
    return f"{server.url}/o/{acme.slug}/projects/{project['id']}{query}"


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_first_rows_show_above_the_fold(browser, world, width, height):
    server, acme, project = world
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        browser_sign_in(page, server.url, acme.owner_email)
        page.goto(_project_url(server, acme, project))
        first = page.locator("#task-rows tr[data-task-key]").first
        expect(first).to_be_visible()
        box = first.bounding_box()
        assert box is not None and box["y"] + box["height"] < height, (width, box)
        expect(page.locator("#task-filter-box")).not_to_have_attribute("open", "")
        expect(page.locator("#task-form-box")).not_to_have_attribute("open", "")
        # An active filter unfolds the filter, so what applies is in sight.
        page.goto(_project_url(server, acme, project, "?pql=priority+%3D+urgent"))
        expect(page.locator("#task-filter-box")).to_have_attribute("open", "")
    finally:
        context.close()


def test_save_by_keyboard_and_mouse_then_open_rename_delete(page, world):
    server, acme, project = world
    browser_sign_in(page, server.url, acme.owner_email)
    rows = page.locator("#task-rows tr[data-task-key]")

    # By keyboard: the filter, then the save fold, the name, Enter.
    page.goto(_project_url(server, acme, project, "?pql=priority+%3D+urgent"))
    expect(rows).to_have_count(1)
    summary = page.locator(".saved-view-save > summary")
    summary.focus()
    page.keyboard.press("Enter")
    name = page.get_by_label("View name")
    expect(name).to_be_visible()
    page.keyboard.press("Tab")
    expect(name).to_be_focused()
    page.keyboard.type("Urgent only")
    page.keyboard.press("Enter")
    tabs = page.get_by_role("navigation", name="Project")
    mine = tabs.get_by_role("link", name=re.compile("^Urgent only"))
    expect(mine).to_have_attribute("aria-current", "page")
    expect(page).to_have_url(re.compile(r"\?view=[0-9a-f-]{36}$"))
    expect(rows).to_have_count(1)

    # By mouse: the board, shared with the org.
    page.goto(_project_url(server, acme, project, "?view=board&sort=priority&dir=asc"))
    page.locator(".saved-view-save > summary").click()
    page.get_by_label("View name").fill("Board by priority")
    page.get_by_label("Share with the org").check()
    page.get_by_role("button", name="Save view").click()
    shared = tabs.get_by_role("link", name=re.compile("^Board by priority"))
    expect(shared).to_have_attribute("aria-current", "page")
    expect(shared).to_contain_text("shared")
    expect(page.locator(".board-col").first).to_be_visible()

    # Opened from its tab: the list again with the saved filter.
    tabs.get_by_role("link", name="List", exact=True).click()
    expect(rows).to_have_count(2)
    mine.click()
    expect(mine).to_have_attribute("aria-current", "page")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Urgent login bug")

    # Rename, then delete: the question is dismissed once, then accepted.
    page.locator(".saved-view-manage > summary").click()
    page.get_by_label("New name").fill("Hot")
    page.get_by_role("button", name="Rename").click()
    hot = tabs.get_by_role("link", name=re.compile("^Hot"))
    expect(hot).to_have_attribute("aria-current", "page")
    page.locator(".saved-view-manage > summary").click()
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Delete view").click()
    expect(hot).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete view").click()
    expect(hot).to_have_count(0)
    expect(page.get_by_role("status").filter(has_text="Deleted the view")).to_be_visible()


def test_group_by_keyboard_and_save_the_grouping(page, world):
    server, acme, project = world
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(_project_url(server, acme, project))
    page.locator("#task-filter-box > summary").focus()
    page.keyboard.press("Enter")
    group = page.get_by_label("Group by")
    expect(group).to_be_visible()
    for _ in range(10):  # the search, the filter, sort and order come first
        if group.evaluate("el => el === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(group).to_be_focused()
    page.keyboard.type("Pri")  # the closed select's type-ahead picks "Priority"
    expect(group).to_have_value("priority")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Apply")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"group=priority"))
    heads = page.locator("#task-rows th[scope=colgroup]")
    expect(heads).to_have_text([re.compile(r"^Urgent · 1 task$"), re.compile(r"^Low · 1 task$")])
    rows = page.locator("#task-rows tr")
    expect(rows.nth(1)).to_contain_text("Urgent login bug")
    expect(rows.nth(3)).to_contain_text("Low docs chore")

    # Saved with the grouping, the view opens grouped.
    page.locator(".saved-view-save > summary").focus()
    page.keyboard.press("Enter")
    page.get_by_label("View name").focus()
    page.keyboard.type("By priority")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?view=[0-9a-f-]{36}$"))
    expect(heads).to_have_count(2)
    expect(page.get_by_label("Group by")).to_have_value("priority")


@pytest.mark.parametrize("width", [1440, 390])
def test_saved_view_page_passes_axe(browser, world, width):
    server, acme, project = world
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, server.url, acme.owner_email)
        page.goto(_project_url(server, acme, project, "?pql=priority+%3D+urgent&group=state"))
        page.locator(".saved-view-save > summary").click()
        page.get_by_label("View name").fill("Urgent")
        page.get_by_role("button", name="Save view").click()
        expect(page).to_have_url(re.compile(r"\?view="))
        expect(page.locator("#task-rows tr.group-row")).to_have_count(1)
        for fold in (
            ".saved-view-save",
            ".saved-view-manage",
            "#task-filter-box",
            "#task-form-box",
        ):
            page.locator(f"{fold} > summary").click()
        expect(page.get_by_label("New name")).to_be_visible()
        problems = axe_problems(page)
        scroll = page.locator("html").evaluate("el => el.scrollWidth")
        if scroll > width:
            problems.append(f"the page scrolls sideways ({scroll} px)")
        assert not problems, "\n".join(problems)
    finally:
        context.close()


def _tab_to(page, target, presses: int = 15) -> None:
    """Press Tab until ``target`` has the focus (from where the focus is)."""
    for _ in range(presses):
        if target.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    expect(target).to_be_focused()


def test_save_changes_to_a_view_by_keyboard(page, world):
    """A view regrouped by keyboard offers Save changes; Enter stores them in the view;
    the Board tab keeps the view, and Reset goes back to it as saved."""
    server, acme, project = world
    resp = server.app.test_client().post(
        acme.url(f"/projects/{project['id']}/views"),
        json={"name": "Urgent only", "pql": "priority = urgent"},
        headers=acme.headers,
    )
    view_id = resp.get_json()["id"]
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(_project_url(server, acme, project, f"?view={view_id}"))
    tabs = page.get_by_role("navigation", name="Project")
    mine = tabs.get_by_role("link", name=re.compile("^Urgent only"))
    expect(mine).to_have_attribute("aria-current", "page")
    save_changes = page.get_by_role("button", name="Save changes to “Urgent only”")
    expect(save_changes).to_have_count(0)

    # Group by priority (the filter is open: the view has one), Apply.
    group = page.get_by_label("Group by")
    page.get_by_label("PQL filter").focus()
    _tab_to(page, group)
    page.keyboard.type("Pri")
    expect(group).to_have_value("priority")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Apply")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"saved={view_id}"))
    expect(mine).to_have_attribute("aria-current", "page")
    expect(page.locator("#saved-view-changes")).to_contain_text("its grouping")

    # Save changes: Tab from the filter's last control, Enter.
    page.get_by_role("button", name="Apply").focus()
    _tab_to(page, save_changes)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"\?view={view_id}$"))
    expect(page.get_by_role("status").filter(has_text="Saved the changes")).to_be_visible()
    expect(mine).to_have_attribute("aria-current", "page")
    expect(page.locator("#task-rows th[scope=colgroup]")).to_have_text(
        [re.compile(r"^Urgent · 1 task$")]
    )
    expect(save_changes).to_have_count(0)

    # The Board tab keeps the view; Reset goes back to it as saved, by keyboard too.
    tabs.get_by_role("link", name="Board", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator(".board-col").first).to_be_visible()
    expect(mine).to_have_attribute("aria-current", "page")
    expect(page.locator(".board-card")).to_have_count(1)
    page.get_by_role("link", name="Reset to the saved view").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"\?view={view_id}$"))
    expect(page.locator("#task-rows th[scope=colgroup]")).to_have_count(1)
