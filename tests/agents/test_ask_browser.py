"""A person asks for a chart in a real browser, corrects what was read in the answer's
controls with the keyboard, and the chart is redrawn in place (no reload, no new ask);
axe-core finds no serious violation and every control has a visible label, at 1280
and at 390 px wide (docs/ai.md#correcting-the-reading)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.agents.conftest import make_project, make_task, states_by_name
from tests.axe import axe_problems
from tests.factories import browser_sign_in, login, make_org

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots")
# Visible controls in <main> without a visible <label> (as tests/test_accessibility.py).
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'main input:not([type=hidden]), main select, main textarea'))
  .filter(el => el.getClientRects().length)
  .filter(el => !Array.from(el.labels || []).some(
    l => l.getClientRects().length && l.textContent.trim() && getComputedStyle(l).clip === 'auto'))
  .map(el => el.name || el.id)"""


@pytest.fixture
def world(live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    login(client, acme.owner_email)
    web, mobile = make_project(client, acme), make_project(client, acme, "Mobile", "MOB")
    done = states_by_name(client, acme, web["id"])["Done"]
    make_task(client, acme, web["id"], kind="bug", state_id=done)
    make_task(client, acme, web["id"], kind="bug")
    make_task(
        client, acme, mobile["id"], state_id=states_by_name(client, acme, mobile["id"])["Done"]
    )
    return live_server, acme


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def _check_page(page, where: str) -> None:
    assert axe_problems(page) == [], where
    assert page.evaluate(UNLABELLED) == [], where


@pytest.mark.parametrize("width", [1280, 390])
def test_correct_the_reading_with_the_keyboard_and_redraw_in_place(browser, world, width):
    server, acme = world
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        browser_sign_in(page, server.url, acme.owner_email)
        page.goto(f"{server.url}/o/{acme.slug}/analytics/ask")
        page.get_by_label("Ask for a chart").fill("tasks completed per week this quarter")
        page.get_by_role("button", name="Ask", exact=True).click()
        answer = page.locator("#ask-result")
        expect(answer.locator(".ask-reading")).to_contain_text(
            "Done tasks, per week, completed this quarter"
        )
        expect(page.get_by_label("Grouped by")).to_have_value("completed")
        expect(page.get_by_label("Date range")).to_have_value("this_quarter")
        page.evaluate("window.__stillHere = true")
        _check_page(page, "answered")
        _shot(page, f"ask-controls-{width}.png")

        # Keyboard only: the dimension, then Tab on to the filter and Enter to redraw.
        dimension = page.get_by_label("Grouped by")
        dimension.focus()
        dimension.select_option("project")
        page.get_by_label("PQL filter").focus()
        page.keyboard.type("kind = bug")
        page.keyboard.press("Enter")
        expect(answer.locator("h2")).to_have_text("Completed bugs by project")
        expect(answer.locator(".ask-reading")).to_contain_text(
            "Done tasks, by project, completed this quarter, where kind = bug"
        )
        expect(answer.locator("tbody")).to_contain_text("Web App")
        expect(page.get_by_label("Grouped by")).to_have_value("project")
        assert page.evaluate("window.__stillHere") is True  # swapped, not reloaded
        # The keyboard stays where it was: on the filter, in the redrawn controls.
        expect(page.get_by_label("PQL filter")).to_be_focused()

        # A filter PQL refuses: the message on the field, focus can reach it, no 500.
        page.get_by_label("PQL filter").fill("priority = = high")
        page.get_by_role("button", name="Redraw chart").press("Enter")
        error = page.locator("#f-ask-filter-error")
        expect(error).to_contain_text("PQL error")
        expect(page.get_by_label("PQL filter")).to_have_attribute("aria-invalid", "true")
        expect(page.get_by_role("button", name="Redraw chart")).to_be_focused()
        _check_page(page, "refused")
        _shot(page, f"ask-controls-refused-{width}.png")
        assert page.locator("html").evaluate("el => el.scrollWidth") <= width
    finally:
        context.close()


def test_the_controls_beside_the_custom_tab_share_no_id(page, world):
    """On the analytics page the Ask box sits above the Custom tab's form, which names
    the same fields: the answer's controls have ids of their own."""
    server, acme = world
    browser_sign_in(page, server.url, acme.owner_email)
    page.goto(f"{server.url}/o/{acme.slug}/analytics/custom")
    page.get_by_label("Ask for a chart").fill("open bugs by assignee")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#f-ask-metric")).to_have_value("open")
    duplicates = page.evaluate(
        """() => { const seen = {}; document.querySelectorAll('[id]').forEach(
            el => seen[el.id] = (seen[el.id] || 0) + 1);
          return Object.keys(seen).filter(k => seen[k] > 1); }"""
    )
    assert duplicates == []
    _check_page(page, "analytics custom tab with an answer")
