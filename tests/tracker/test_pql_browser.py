"""The task list's PQL box in a real browser (docs/pql.md#autocomplete): suggestions
chosen by keyboard (arrows, Enter, Tab, Escape) and by mouse, a did-you-mean message
for a typo, and axe-core finding nothing serious with the list open, at 1440 and 390 px."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.axe import axe_problems
from tests.factories import (
    browser_sign_in,
    create_project,
    login,
    make_org,
    new_dashboard,
    new_task,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def site(live_server):
    app = live_server.app
    org = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    login(client, org.owner_email)
    project = create_project(client, org)
    new_task(client, org, project, title="Fix login flow", priority="high")
    new_task(client, org, project, title="Write the release notes", priority="low")
    return live_server, org, project


def _answered(page, q: str):
    """Waits for the suggest API's answer to ``q``: the list shows the last answer only."""

    def matches(response) -> bool:
        if "/pql/suggest" not in response.url:
            return False
        return parse_qs(urlparse(response.url).query, keep_blank_values=True).get("q") == [q]

    return page.expect_response(matches)


@pytest.mark.parametrize("width", [1440, 390])
def test_suggestions_by_keyboard_and_mouse_and_a_did_you_mean(browser, site, width):
    server, org, project = site
    context = browser.new_context(viewport={"width": width, "height": 844})
    try:
        page = context.new_page()
        browser_sign_in(page, server.url, org.owner_email, org.password)
        page.goto(f"{server.url}/o/{org.slug}/projects/{project['id']}")
        page.wait_for_load_state("load")  # pql.js (deferred) has run
        page.locator("#task-filter-box > summary").click()
        box = page.get_by_role("combobox", name="PQL filter")
        listbox = page.get_by_role("listbox", name="PQL suggestions")
        options = listbox.get_by_role("option")
        box.click()

        # Keyboard: a field by arrows and Enter, an operator by arrows and Tab.
        with _answered(page, "prio"):
            page.keyboard.type("prio")
        expect(options).to_have_count(1)
        expect(page.locator("#pql-status")).to_have_text(re.compile(r"^1 suggestion\."))
        expect(box).to_have_attribute("aria-expanded", "true")
        page.keyboard.press("ArrowDown")
        first = options.first
        expect(first).to_have_attribute("aria-selected", "true")
        expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id"))
        with _answered(page, "priority "):
            page.keyboard.press("Enter")
        expect(box).to_have_value("priority ")
        expect(options.first).to_have_text("=")
        page.keyboard.press("ArrowDown")
        with _answered(page, "priority = "):
            page.keyboard.press("Tab")
        expect(box).to_have_value("priority = ")
        expect(box).to_be_focused()

        # Mouse: a value, with axe finding nothing serious while the list is open.
        high = listbox.get_by_role("option", name="high")
        expect(high).to_be_visible()
        assert axe_problems(page) == []
        assert page.locator("html").evaluate("el => el.scrollWidth") <= width
        with _answered(page, "priority = high "):
            high.click()
        expect(box).to_have_value("priority = high ")
        expect(box).to_be_focused()

        # Escape closes the list and keeps the text; Enter with nothing chosen applies.
        expect(listbox.get_by_role("option", name="AND")).to_be_visible()
        page.keyboard.press("Escape")
        expect(listbox).to_be_hidden()
        expect(box).to_have_attribute("aria-expanded", "false")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"pql=priority"))
        expect(page.locator("main")).to_contain_text("Fix login flow")
        expect(page.locator("main")).not_to_contain_text("Write the release notes")

        # A typo: the message next to the box names the nearest field.
        box = page.get_by_role("combobox", name="PQL filter")
        box.fill("asignee = currentUser()")
        box.press("Escape")
        box.press("Enter")
        error = page.locator("#task-pql-error")
        expect(error).to_contain_text("unknown field 'asignee'. Did you mean 'assignee'?")
        expect(page.get_by_role("combobox", name="PQL filter")).to_have_attribute(
            "aria-invalid", "true"
        )
        assert axe_problems(page) == []
    finally:
        context.close()


def test_the_dashboard_view_filter_inserts_on_enter_and_applies_on_the_next(page, site):
    """The view filter is a textarea whose Enter applies it (dashboards.js): with a
    suggestion chosen, Enter inserts it instead; with none chosen, Enter applies."""
    server, org, _project = site
    client = server.app.test_client()
    dashboard = new_dashboard(client, org, name="Team")
    browser_sign_in(page, server.url, org.owner_email, org.password)
    page.goto(f"{server.url}/o/{org.slug}/dashboards/{dashboard['id']}")
    page.wait_for_load_state("load")
    box = page.get_by_label("View filter")
    expect(box).to_have_attribute("aria-autocomplete", "list")
    box.click()
    with _answered(page, "kind = f"):
        page.keyboard.type("kind = f")
    option = page.get_by_role("listbox", name="PQL suggestions").get_by_role("option")
    expect(option).to_have_count(1)
    page.keyboard.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", option.first.get_attribute("id"))
    with _answered(page, "kind = feature "):
        page.keyboard.press("Enter")
    expect(box).to_have_value("kind = feature ")
    assert "filter=" not in page.url
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"filter=kind"))
