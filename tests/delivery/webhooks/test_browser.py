"""The Webhooks pages in headless Chromium: no serious axe-core finding at 1440 and
390 px, no sideways scroll on a phone, and the keyboard path from Settings to adding
an endpoint (its secret shown), a test event in the log, and the rotation's
confirmation page; a test event sent by keyboard leaves the focus on the message that
says it was queued."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.axe import check_page
from tests.factories import browser_sign_in
from workspace.delivery.webhooks import service
from workspace.extensions import db

pytestmark = pytest.mark.browser


def test_the_webhook_pages_are_accessible_and_work_by_keyboard(browser, live_server, acme,
                                                               receiver):  # fmt: skip
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, acme.owner_email, acme.password)
        page.goto(f"{live_server.url}/o/{acme.slug}/settings")
        page.get_by_role("link", name="Webhooks").first.click()
        expect(page.locator("main h1")).to_have_text("Webhooks")
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_label("URL (https)").fill(receiver.url("/ok/browser"))
        page.get_by_label("Description").fill("SIEM")
        page.get_by_label("Every task event").focus()
        page.keyboard.press("Space")
        page.get_by_role("button", name="Add endpoint").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#secret")).to_contain_text("whsec_")
        # Like every other secret shown once, it has a Copy button beside it.
        expect(page.locator('button[data-copy="#secret"]')).to_be_visible()
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_role("button", name="Send test event").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_contain_text("webhook.test")
        expect(page.locator("#secret")).to_have_count(0)  # shown once only
        for width in (1440, 390):
            check_page(page, width)

        page.get_by_role("link", name="Rotate secret…").focus()
        page.keyboard.press("Enter")
        expect(page.locator("main h1")).to_have_text("Rotate the signing secret")
        check_page(page, 390)
        # The page is the question: its button does not ask again in a dialog.
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.get_by_role("button", name="Rotate the secret").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#secret")).to_contain_text("whsec_")
        assert dialogs == []
        # The keyboard is at the secret's Copy button, not at the top of the page.
        expect(page.locator("#new-secret").get_by_role("button", name="Copy")).to_be_focused()
        # A reload of the page that showed it is a GET that shows it no more, and
        # rotates nothing.
        page.reload()
        expect(page.locator("main h1")).to_be_visible()
        expect(page.locator("#secret")).to_have_count(0)
    finally:
        context.close()


def test_a_test_event_sent_by_keyboard_leaves_the_focus_on_what_it_did(page, live_server, acme,
                                                                       receiver):  # fmt: skip
    # The page reloads without a place of its own to come back at: the focus had
    # fallen to <body> at the top of the page.
    with live_server.app.app_context():
        made = service.create(acme.org_id, acme.owner_id, url=receiver.url("/ok/focus"),
                              kinds=["task.*"])  # fmt: skip
        db.session.commit()
        endpoint_id = made.endpoint.id
    browser_sign_in(page, live_server.url, acme.owner_email, acme.password)
    page.goto(f"{live_server.url}/o/{acme.slug}/settings/webhooks/{endpoint_id}")
    page.get_by_role("button", name="Send test event").focus()
    page.keyboard.press("Enter")
    message = page.locator("#flash-area .flash-success")
    expect(message).to_contain_text("Test event queued")
    expect(page.locator("main")).to_contain_text("webhook.test")
    expect(message).to_be_focused()
    assert page.evaluate("document.activeElement.textContent").strip().startswith("Test event")
