"""The Subscriptions page in headless Chromium: no serious axe-core finding at 1440
and 390 px, no sideways scroll on a phone, and the keyboard path from the dashboard's
page to a weekly subscription, "send now" and the removal's confirmation."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.analytics.subscriptions.conftest import Team
from tests.axe import check_page
from tests.factories import browser_sign_in

pytestmark = pytest.mark.browser


def test_subscribing_by_keyboard_on_an_accessible_page(browser, live_server, team: Team):
    world = team.world
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, world.member.owner_email, world.member.password)
        page.goto(f"{live_server.url}/o/{world.acme.slug}/dashboards/{team.dashboard_id}")
        page.get_by_role("link", name="Subscribe…").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Subscriptions")
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_label("How often").focus()
        page.keyboard.press("End")  # Daily, Weekly, Monthly: the last
        page.keyboard.press("ArrowUp")  # then back to Weekly
        page.get_by_label("Day of the week (weekly)").focus()
        page.keyboard.press("ArrowDown")  # Tuesday
        page.get_by_label("Hour").fill("25")
        page.get_by_label("Hour").press("Enter")
        expect(page.locator("#f-hour-error")).to_be_visible()
        check_page(page, 390)

        page.get_by_label("Hour").fill("9")
        page.get_by_label("Hour").press("Enter")
        expect(page.locator("main")).to_contain_text("weekly on Tuesday at 09:00")
        page.get_by_role("button", name=re.compile("^Send now")).focus()
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_contain_text("(on request)")
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_role("link", name=re.compile("^Remove…")).focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Remove a subscription")
        check_page(page, 390)
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Remove the subscription").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_contain_text("No subscriptions yet.")
    finally:
        context.close()
