"""My work and the inbox in a real browser (docs/inbox.md): a comment @mentions a
colleague through the people picker by keyboard; she sees the count in the
navigation, marks one notification read by keyboard and one by mouse, then all read;
axe-core finds nothing serious or critical on My work and the Inbox at 1440 and 390 px."""

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
    mia = add_person(app, acme.org_id, "mia.chen@acme.test")
    client = app.test_client()
    project, _ = setup_project(client, acme)
    for title in ("Fix login", "Ship docs"):
        new_task(client, acme, project, title=title, assignee_id=str(mia.owner_id))
    new_task(
        client,
        acme,
        project,
        title="Late one",
        due_date="2020-01-01",
        assignee_id=str(mia.owner_id),
    )
    return live_server, acme, mia


def test_mention_by_keyboard_then_mark_read_by_keyboard_and_mouse(page, world):
    server, acme, mia = world
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(f"{server.url}/o/{acme.slug}/tasks/WEB-1")
    box = page.get_by_label("Add a comment")
    box.click()
    box.press_sequentially("Please look @mia")
    picker = page.get_by_role("listbox", name="People to mention")
    option = picker.get_by_role("option", name=re.compile("Mia.Chen"))
    expect(option).to_be_visible()
    expect(option).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", "mention-option-0")
    page.keyboard.press("Enter")  # inserts the handle, does not submit
    expect(box).to_have_value("Please look @mia.chen ")
    expect(page.locator("#mention-picker")).to_be_hidden()
    box.press_sequentially("thanks @nobodyhere")
    page.keyboard.press("Escape")
    expect(page.locator("#mention-picker")).to_be_hidden()
    page.get_by_role("button", name="Comment", exact=True).click()
    expect(page.locator(".tl-comment").last).to_contain_text("@mia.chen")
    # The picker's last lookup may still be in flight: its answer would set the
    # owner's session cookie again after the clear (CI saw /signin redirect home).
    page.wait_for_load_state("networkidle")
    page.goto("about:blank")
    page.context.clear_cookies()

    browser_sign_in(page, server.url, mia.owner_email)
    nav = page.get_by_role("navigation", name="Organization")
    inbox_link = nav.get_by_role("link", name="Inbox 4 unread")
    expect(inbox_link).to_be_visible()
    inbox_link.click()
    # Keys pressed before htmx has loaded submit the plain form (a full page load,
    # which marks read but cannot keep focus); a person cannot type that fast.
    expect(page).to_have_url(re.compile(r"/inbox$"))
    page.wait_for_load_state("load")
    items = page.locator(".inbox-item")
    expect(items).to_have_count(4)
    expect(items.first).to_contain_text("mentioned you in WEB-1")
    expect(items.first).to_contain_text("Unread")

    # By keyboard: focus the first item's button and press Enter.
    first = items.first.get_by_role("button", name=re.compile("^Mark read"))
    first.focus()
    page.keyboard.press("Enter")
    expect(items.first.get_by_role("button", name=re.compile("^Mark unread"))).to_be_focused()
    expect(items.first).not_to_contain_text("Unread")
    expect(nav.get_by_role("link", name="Inbox 3 unread")).to_be_visible()
    # By mouse.
    items.nth(1).get_by_role("button", name=re.compile("^Mark read")).click()
    expect(nav.get_by_role("link", name="Inbox 2 unread")).to_be_visible()
    page.get_by_role("button", name="Mark all read").click()
    expect(nav.get_by_role("link", name="Inbox", exact=True)).to_be_visible()
    expect(page.locator(".inbox-item.is-unread")).to_have_count(0)
    expect(page.locator("#inbox-list")).to_be_focused()


@pytest.mark.parametrize("width", [1440, 390])
def test_my_work_and_inbox_pass_axe(browser, world, width):
    server, acme, mia = world
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, server.url, mia.owner_email)
        problems = []
        for path in ("/my-work", "/inbox"):
            page.goto(f"{server.url}/o/{acme.slug}{path}")
            expect(page.locator("main h1")).to_be_visible()
            problems += [f"{path}: {p}" for p in axe_problems(page)]
            scroll = page.locator("html").evaluate("el => el.scrollWidth")
            if scroll > width:
                problems.append(f"{path}: the page scrolls sideways ({scroll} px)")
        page.goto(f"{server.url}/o/{acme.slug}/my-work")
        expect(page.get_by_text("Overdue · ")).to_be_visible()
        assert not problems, "\n".join(problems)
    finally:
        context.close()
