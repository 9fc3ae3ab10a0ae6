"""The alert pages in headless Chromium: no serious axe-core finding at 1440 and 390 px,
no sideways scroll on a phone, and the keyboard path from the dashboard's "Create
alert…" through the form to the Alerts page, muting and the history."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.analytics.alerts.conftest import Team
from tests.axe import check_page
from tests.factories import browser_sign_in

pytestmark = pytest.mark.browser


def test_create_and_mute_an_alert_by_keyboard(browser, live_server, team: Team):
    world = team.world
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, world.acme.owner_email, world.acme.password)
        page.goto(f"{live_server.url}/o/{world.acme.slug}/dashboards/{team.dashboard_id}")
        page.get_by_role("link", name="Create alert…").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Create an alert")
        for width in (1440, 390):
            check_page(page, width)

        # A threshold that is no number is refused beside its field.
        page.get_by_label("Threshold").focus()
        page.keyboard.type("lots")
        page.keyboard.press("Enter")
        expect(page.locator("#f-threshold-error")).to_be_visible()
        check_page(page, 390)
        page.get_by_label("Threshold").fill("")
        page.get_by_label("Threshold").focus()
        page.keyboard.type("10")
        page.get_by_label("Also mail when it stops holding").focus()
        page.keyboard.press("Space")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/alerts$"))
        expect(page.locator("main")).to_contain_text("Open urgent bugs: above 10")
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_label("Mute Open urgent bugs for").focus()
        page.keyboard.press("End")  # "Until unmuted"
        page.get_by_role("button", name="Mute Open urgent bugs").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_contain_text("Muted until unmuted")
        page.get_by_role("link", name="History of Open urgent bugs").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Open urgent bugs")
        for width in (1440, 390):
            check_page(page, width)

        # Changed from its history page, the form filled in as the alert is.
        page.get_by_role("link", name="Change this alert").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Change an alert")
        expect(page.get_by_label("Threshold")).to_have_value("10")
        expect(page.get_by_label("Also mail when it stops holding")).to_be_checked()
        for width in (1440, 390):
            check_page(page, width)
        page.get_by_label("Threshold").fill("")
        page.get_by_label("Threshold").focus()
        page.keyboard.type("12")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/alerts$"))
        expect(page.locator("main")).to_contain_text("Open urgent bugs: above 12")
    finally:
        context.close()
