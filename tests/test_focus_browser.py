"""Where the keyboard focus goes after a page answers (static/js/app.js): a form
answered with its errors brings the first field at fault into view and focuses it (on
a phone the LDAP form's search filter is a screen and more below the top the page
reloads at), an HTMX swap that replaced the focused element puts the focus back
at the same place in the new content instead of on <body>, and an action that reloads
to no place of its own (its row gone, its bar hidden) has the focus on the flash that
says what it did."""

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


def test_a_bulk_edit_by_keyboard_leaves_the_focus_on_what_it_did(page, live_server):
    # The page reloads with nothing selected, so the bar and its Apply button are
    # hidden: the focus had fallen to <body> at the top of the page.
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    client = live_server.app.test_client()
    project, _ = setup_project(client, org)
    first = new_task(client, org, project, title="One")
    second = new_task(client, org, project, title="Two")
    browser_sign_in(page, live_server.url, org.owner_email)
    page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}")
    for task in (first, second):
        page.get_by_label(f"Select {project['identifier']}-{task['sequence']}").check()
    bar = page.locator("#bulk-form")
    bar.get_by_label("Priority").select_option(label="Urgent")
    bar.get_by_role("button", name="Apply to selected").focus()
    page.keyboard.press("Enter")
    message = page.locator("#flash-area .flash-success")
    expect(message).to_contain_text("Updated 2 tasks.")
    expect(message).to_be_focused()
    assert page.evaluate("document.activeElement.textContent").strip().startswith("Updated 2")


def test_a_token_revoked_by_keyboard_leaves_the_focus_on_what_it_did(page, live_server):
    # The token's row, and its Revoke button, are gone from the page it reloads.
    org = make_org(live_server.app, "Acme", "owner@acme.test")  # with a token, "tests"
    browser_sign_in(page, live_server.url, org.owner_email)
    page.goto(f"{live_server.url}/o/{org.slug}/tokens")
    questions = []
    page.on("dialog", lambda d: (questions.append(d.message), d.accept()))
    page.get_by_role("button", name="Revoke").focus()
    page.keyboard.press("Enter")
    message = page.locator("#flash-area .flash-success")
    expect(message).to_contain_text("Token revoked.")
    assert questions and questions[0].startswith("Revoke tests?")
    expect(page.get_by_role("button", name="Revoke")).to_have_count(0)
    expect(message).to_be_focused()
    assert page.evaluate("document.activeElement.textContent").strip().startswith("Token revoked")
    # Dismissed by keyboard, the message takes the focus with it to the page's content,
    # not to <body> at the top, whence Tab would start over in the top bar.
    page.keyboard.press("Tab")
    expect(message.locator(".flash-close")).to_be_focused()
    page.keyboard.press("Enter")
    expect(message).to_have_count(0)
    expect(page.locator("main#main")).to_be_focused()


def test_a_mapping_removed_by_keyboard_leaves_the_focus_on_the_next_row(page, live_server):
    # The row goes in place (HTMX): the focus had fallen to <body>, and nothing said
    # what was done, where a reload would have flashed "Mapping removed.".
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    client = live_server.app.test_client()
    project, _ = setup_project(client, org)
    for group in ("alpha", "beta"):
        made = client.post(
            org.url("/sso/group-mappings"),
            headers=org.headers,
            json={"idp_group": group, "project_id": project["id"], "role": "member"},
        )
        assert made.status_code == 201, made.get_json()
    browser_sign_in(page, live_server.url, org.owner_email)
    page.goto(f"{live_server.url}/o/{org.slug}/settings/group-sync")
    page.on("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Remove the mapping of alpha").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Remove the mapping of alpha")).to_have_count(0)
    expect(page.get_by_role("button", name="Remove the mapping of beta")).to_be_focused()
    expect(page.locator("#flash-area [role=status]")).to_contain_text("Mapping removed.")
