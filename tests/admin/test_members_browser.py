"""Settings > Members in a real Chromium: invite and copy the link, join with it in a
fresh browser, change a role, be refused demoting the last owner, deactivate (after
the confirmation) and reactivate, then read that admin's events in the audit log."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import add_person, browser_sign_in, make_org

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def org(live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    add_person(app, acme.org_id, "ann@acme.test")
    add_person(app, acme.org_id, "bob@acme.test", "admin")
    return acme


def _row(page, email):
    return page.locator("tr", has_text=email)


def test_invite_join_roles_last_owner_deactivate_and_audit(browser, live_server, org):
    base = live_server.url
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    browser_sign_in(page, base, org.owner_email)
    page.goto(f"{base}/o/{org.slug}/settings/members")
    expect(page.get_by_role("heading", name="Members")).to_be_visible()

    # Invite, and copy the one-time link.
    page.locator("#f-email").fill("Nina@Acme.test")
    page.get_by_label("Name (optional)").fill("Nina New")
    page.get_by_label("Role", exact=True).select_option("member")
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.get_by_role("heading", name="nina@acme.test is invited")).to_be_visible()
    link_box = page.get_by_label("One-time sign-in link")
    link = link_box.input_value()
    assert re.search(r"/invite/[\w-]{20,}$", link)
    page.get_by_role("button", name="Copy link").click()
    # The clipboard is what the person uses; the button's "Copied" lasts 1.6 s, which a
    # loaded CI machine can sleep through, so the test waits on the clipboard itself.
    deadline = time.monotonic() + 10
    while page.evaluate("navigator.clipboard.readText()") != link:
        assert time.monotonic() < deadline, "the link never reached the clipboard"
        page.wait_for_timeout(100)
    _shot(page, "members-invited-1280")

    # A fresh browser joins with it and chooses a password.
    guest = browser.new_context(viewport={"width": 390, "height": 844})
    tab = guest.new_page()
    tab.goto(link.replace("http://localhost", base))
    expect(tab.get_by_role("heading", name="Join Acme as nina@acme.test")).to_be_visible()
    _shot(tab, "invite-join-390")
    tab.get_by_label("Choose a password (optional)").fill("nina-long-password")
    tab.get_by_role("button", name="Join Acme").click()
    expect(tab).to_have_url(re.compile(r"/o/acme/$"))
    expect(tab.get_by_text("Welcome to Acme.")).to_be_visible()
    # The link works once.
    tab.goto(link.replace("http://localhost", base))
    expect(tab.get_by_role("heading", name="This link cannot be used.")).to_be_visible()
    guest.close()

    # Change a role.
    page.goto(f"{base}/o/{org.slug}/settings/members")
    row = _row(page, "ann@acme.test")
    row.get_by_label("Role of Ann").select_option("admin")
    row.get_by_role("button", name="Change role").click()
    expect(page.get_by_text("Ann is now admin.")).to_be_visible()
    expect(_row(page, "ann@acme.test").get_by_label("Role of Ann")).to_have_value("admin")

    # The last owner cannot be demoted: the page says why and what to do.
    row = _row(page, "owner@acme.test")
    row.get_by_label(re.compile("Role of Acme Owner")).select_option("member")
    row.get_by_role("button", name="Change role").click()
    expect(page.get_by_role("alert")).to_contain_text("last active owner")
    expect(page.get_by_role("alert")).to_contain_text("Make another member an owner first")
    _shot(page, "members-last-owner-1280")

    # Deactivate (confirming) and reactivate.
    questions = []

    def accept(dialog):
        questions.append(dialog.message)
        dialog.accept()

    page.goto(f"{base}/o/{org.slug}/settings/members")
    page.once("dialog", accept)
    _row(page, "ann@acme.test").get_by_role("button", name="Deactivate").click()
    expect(page.get_by_text("Ann is deactivated")).to_be_visible()
    assert questions and questions[0].startswith("Deactivate Ann?")
    expect(_row(page, "ann@acme.test")).to_contain_text("deactivated")
    _row(page, "ann@acme.test").get_by_role("button", name="Reactivate").click()
    expect(page.get_by_text("Ann is active again")).to_be_visible()
    expect(_row(page, "ann@acme.test")).to_contain_text("active")

    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, "members-390")
    page.set_viewport_size({"width": 1280, "height": 900})

    # The audit log filtered by this admin shows their events.
    page.goto(f"{base}/o/{org.slug}/settings/events")
    page.get_by_label("Actor").select_option(label="Acme Owner")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("tbody tr")
    for kind in ("member.invited", "member.role_changed", "member.deactivated", "member.added"):
        expect(rows.filter(has_text=kind).first).to_be_visible()
    expect(rows.filter(has_text="member.invite_used")).to_have_count(0)  # Nina's, not the owner's
    _shot(page, "audit-by-actor-1280")
    context.close()


def test_general_settings_at_phone_width(page, live_server, org):
    page.set_viewport_size({"width": 390, "height": 844})
    browser_sign_in(page, live_server.url, org.owner_email)
    page.goto(f"{live_server.url}/o/{org.slug}/settings")
    page.get_by_label("Name").fill("Acme Corp")
    page.get_by_label("Time zone").select_option("Europe/Berlin")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()
    expect(page.get_by_label("Time zone")).to_have_value("Europe/Berlin")
    _shot(page, "general-390")
