"""The Mail pages in headless Chromium: no serious axe-core finding at 1440 and 390 px,
no sideways scroll on a phone, and the keyboard path from the System page through the
settings, the test mail, the outbox and its cleared confirmation."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import check_page
from tests.factories import browser_sign_in

pytestmark = pytest.mark.browser


def test_the_mail_pages_are_accessible_and_work_by_keyboard(browser, live_server, operator):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, operator.owner_email, operator.password)
        page.goto(f"{live_server.url}/system")
        page.get_by_role("link", name="Mail and outbox").click()
        expect(page.locator("main h1")).to_have_text("Mail")
        for width in (1440, 390):
            check_page(page, width)

        # A bad port is refused beside its field.
        page.get_by_label("Host").fill("smtp.example.com")
        page.get_by_label("Port").fill("70000")
        page.get_by_label("From address").fill("ws@acme.test")
        page.get_by_label("From address").press("Enter")
        expect(page.locator("#f-port-error")).to_be_visible()
        check_page(page, 390)

        # With no server saved, the test mail goes to the outbox (keyboard only).
        page.goto(f"{live_server.url}/system/mail")
        to = page.get_by_label("Send to")
        to.fill("me@acme.test")
        to.press("Enter")
        expect(page.locator("#test-result")).to_contain_text("Kept in the outbox")
        page.get_by_role("link", name="Read it in the outbox").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Workspace test mail")
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_role("link", name="Outbox").first.click()
        expect(page.locator("main h1")).to_have_text("Outbox")
        for width in (1440, 390):
            check_page(page, width)
        page.get_by_role("link", name="Clear the outbox…").click()
        expect(page.locator("main h1")).to_have_text("Clear the outbox")
        check_page(page, 390)
        page.get_by_role("button", name="Clear the outbox").click()
        expect(page).to_have_url(re.compile(r"/system/mail/outbox$"))
        expect(page.locator("main")).to_contain_text("The outbox is empty.")
    finally:
        context.close()
