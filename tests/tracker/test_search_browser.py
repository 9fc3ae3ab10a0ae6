"""The search page in headless Chromium: typed by keyboard, the results arrive live
(HTMX) with the matches marked, Enter on a result opens the task; the page passes
axe-core at 1440 and 390 px and does not scroll sideways on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import browser_sign_in, create_project, login, make_org, new_task

pytestmark = pytest.mark.browser


@pytest.fixture
def acme_site(live_server):
    app = live_server.app
    org = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    login(client, org.owner_email)
    project = create_project(client, org)
    new_task(client, org, project, title="Login flow <b>redesign</b>")
    new_task(client, org, project, title="Invoice export", description="breaks the login flow")
    return live_server.url, org


def test_keyboard_search_live_results_open_and_axe_at_both_widths(browser, acme_site):
    base, org = acme_site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, base, org.owner_email)
        page.goto(f"{base}/o/{org.slug}/search")
        box = page.get_by_role("searchbox", name="Search")
        box.focus()
        page.keyboard.type("login flow")
        results = page.get_by_role("list", name="Search results")
        expect(results.get_by_role("listitem")).to_have_count(2)
        first = results.get_by_role("listitem").first
        expect(first).to_contain_text("WEB-1")
        # The task's own markup is text; the match is marked.
        expect(first.locator("mark").first).to_have_text("Login")
        expect(first).to_contain_text("<b>redesign</b>")
        expect(results.get_by_role("listitem").nth(1).locator(".search-hit-snippet mark").first)
        assert "q=login%20flow" in page.url  # the address keeps the search
        page.keyboard.press("Tab")  # the Search button
        page.keyboard.press("Tab")  # the PQL link
        page.keyboard.press("Tab")  # the first result
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/o/{org.slug}/tasks/WEB-1")
        # One signed-in tab for both widths: the sign-in is the slow part.
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{base}/o/{org.slug}/search?q=login")
            expect(page.get_by_role("list", name="Search results")).to_be_visible()
            assert axe_problems(page) == [], width
            wide = "document.documentElement.scrollWidth > window.innerWidth + 1"
            assert not page.evaluate(wide), width
    finally:
        context.close()
