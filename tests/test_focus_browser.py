"""Where the keyboard focus goes after a page answers (static/js/app.js): a form
answered with its errors brings the first field at fault into view and focuses it (on
a phone the LDAP form's search filter is a screen and more below the top the page
reloads at), and an HTMX swap that replaced the focused element puts the focus back
at the same place in the new content instead of on <body>."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import browser_sign_in, make_org, new_task, setup_project

pytestmark = pytest.mark.browser


def test_a_refused_form_focuses_its_first_error_in_view_on_a_phone(browser, live_server):
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        browser_sign_in(page, live_server.url, org.owner_email)
        page.goto(f"{live_server.url}/o/{org.slug}/settings/ldap")
        page.get_by_label("Server address").fill("ldaps://ldap.acme.test")
        page.get_by_label("Bind DN").fill("cn=reader,dc=acme,dc=test")
        page.get_by_label("Bind password").fill("secret")
        page.locator("#f-search_base").fill("dc=acme,dc=test")
        search_filter = page.locator("#f-search_filter")
        search_filter.fill("(uid=foo")
        page.get_by_role("button", name="Save").click()
        expect(search_filter).to_have_attribute("aria-invalid", "true")
        expect(search_filter).to_be_focused()
        expect(search_filter).to_be_in_viewport()
        expect(search_filter).to_have_value("(uid=foo")  # kept, to correct
        assert search_filter.evaluate("el => el.getBoundingClientRect().top") > 0
    finally:
        context.close()


def test_a_comment_posted_by_keyboard_leaves_the_focus_in_the_comment_box(page, live_server):
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    client = live_server.app.test_client()
    project, _ = setup_project(client, org)
    task = new_task(client, org, project, title="Focus after a swap")
    browser_sign_in(page, live_server.url, org.owner_email)
    page.goto(f"{live_server.url}/o/{org.slug}/tasks/{project['identifier']}-{task['sequence']}")
    box = page.get_by_label("Add a comment")
    box.fill("Looks right to me.")
    box.press("Tab")
    expect(page.get_by_role("button", name="Comment")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#discussion")).to_contain_text("Looks right to me.")
    # The discussion was swapped whole; the focus is where a second comment goes.
    expect(page.get_by_label("Add a comment")).to_be_focused()
    expect(page.get_by_label("Add a comment")).to_have_value("")
