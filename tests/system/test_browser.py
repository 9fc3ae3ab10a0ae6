"""The System page in headless Chromium: no serious axe-core finding at desktop and
phone width, no sideways scroll on a phone, keyboard reachable, and a probe run from
the page shows up done without reloading (HTMX polling)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import browser_sign_in
from tests.system.conftest import add_job, job_state

pytestmark = pytest.mark.browser


def test_the_system_page_is_accessible_and_shows_a_probe_end_to_end(
    browser, live_server, operator, worker
):
    app = live_server.app
    dead = add_job(app, operator.org_id, last_error="RuntimeError: " + "x" * 300)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, operator.owner_email, operator.password)
        page.goto(f"{live_server.url}/o/{operator.slug}/")
        nav = page.get_by_role("navigation", name="Organization")
        nav.get_by_role("link", name="System").click()
        expect(page.locator("main h1")).to_have_text("System")
        assert axe_problems(page) == []

        # The keyboard reaches the probe button; Enter runs it and the page follows it.
        probe = page.get_by_role("button", name="Run a probe")
        probe.focus()
        expect(probe).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator(".flash-success")).to_contain_text("Probe")
        expect(page.locator("#probes tbody tr").first).to_contain_text("Done", timeout=15_000)

        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        assert axe_problems(page) == []
        width = page.locator("html").evaluate("el => el.scrollWidth")
        assert width <= 390, f"the page scrolls sideways at 390 px ({width})"

        # Discard asks on a page of its own first.
        page.locator(f"#discard-{dead}").click()
        expect(page.locator("main h1")).to_have_text("Discard a failed job")
        assert axe_problems(page) == []
        assert job_state(app, dead) == "dead"
        page.get_by_role("button", name="Discard the job").click()
        expect(page).to_have_url(re.compile(r"/system#failed$"))
        expect(page.locator(".flash-success")).to_contain_text("discarded")
        assert job_state(app, dead) is None
    finally:
        context.close()
