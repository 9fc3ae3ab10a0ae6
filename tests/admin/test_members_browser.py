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


def _menu(page, email, who):
    """The row's one menu button ("Actions for Ann")."""
    return _row(page, email).locator("summary", has_text=f"Actions for {who}")


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
    page.locator("#f-role").select_option("member")
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.get_by_role("heading", name="nina@acme.test is invited")).to_be_visible()
    link_box = page.get_by_label("One-time sign-in link")
    link = link_box.input_value()
    assert re.search(r"/invite/[\w-]{20,}$", link)
    # The keyboard is at the link's Copy button, whatever the page's length.
    expect(page.get_by_role("button", name="Copy link")).to_be_focused()
    page.keyboard.press("Enter")
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

    # Change a role from the row's menu, with the mouse.
    page.goto(f"{base}/o/{org.slug}/settings/members")
    # Granting admin (or owner) is asked first; dismissed, nothing changes.
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    _menu(page, "ann@acme.test", "Ann").click()
    _row(page, "ann@acme.test").get_by_role("button", name="Make admin").click()
    expect(_row(page, "ann@acme.test").locator(".member-role")).to_have_text("member")
    assert asked and asked[0].startswith("Make Ann an admin of Acme?")
    page.once("dialog", lambda dialog: dialog.accept())
    _row(page, "ann@acme.test").get_by_role("button", name="Make admin").click()
    expect(page.get_by_text("Ann is now an admin.")).to_be_visible()
    # The page comes back at Ann's row with the focus on its menu, not at the top.
    expect(page).to_have_url(re.compile(r"/settings/members#member-[0-9a-f-]{36}$"))
    expect(_menu(page, "ann@acme.test", "Ann")).to_be_focused()
    # On a short window the row it scrolls to sits below the sticky top bar, not under.
    at_row = page.url
    page.set_viewport_size({"width": 1280, "height": 320})
    page.goto(at_row.split("#")[0])
    page.goto(at_row)
    topbar = page.locator(".topbar").bounding_box()
    assert _row(page, "ann@acme.test").bounding_box()["y"] >= topbar["y"] + topbar["height"]
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(_row(page, "ann@acme.test").locator(".member-role")).to_have_text("admin")

    # ...and with the keyboard: Tab to the menu, Enter opens it, Escape closes it and
    # keeps the focus on its button, Tab reaches the choices, Enter picks one.
    summary = _menu(page, "ann@acme.test", "Ann")
    summary.focus()
    page.keyboard.press("Enter")
    make_member = _row(page, "ann@acme.test").get_by_role("button", name="Make member")
    expect(make_member).to_be_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Escape")
    expect(make_member).to_be_hidden()
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    expect(make_member).to_be_visible()
    page.keyboard.press("Tab")  # the first choice: Make owner, then Make member
    page.keyboard.press("Tab")
    expect(make_member).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Ann is now a member.")).to_be_visible()
    # One menu open at a time.
    _menu(page, "ann@acme.test", "Ann").click()
    _menu(page, "bob@acme.test", "Bob").click()
    expect(page.locator("details.row-menu[open]")).to_have_count(1)
    page.keyboard.press("Escape")

    # The last owner cannot be demoted: the page says why and what to do.
    _menu(page, "owner@acme.test", "Acme Owner").click()
    _row(page, "owner@acme.test").get_by_role("button", name="Make member").click()
    expect(page.get_by_role("alert").first).to_contain_text("last active owner")
    expect(page.get_by_role("alert").first).to_contain_text("Make another member an owner first")
    _shot(page, "members-last-owner-1280")

    # Deactivate (confirming) and reactivate.
    questions = []

    def accept(dialog):
        questions.append(dialog.message)
        dialog.accept()

    page.goto(f"{base}/o/{org.slug}/settings/members")
    page.once("dialog", accept)
    _menu(page, "ann@acme.test", "Ann").click()
    _row(page, "ann@acme.test").get_by_role("button", name="Deactivate").click()
    expect(page.get_by_text("Ann is deactivated")).to_be_visible()
    assert questions and questions[0].startswith("Deactivate Ann?")
    expect(_row(page, "ann@acme.test")).to_contain_text("deactivated")
    # Every column, the row menus' included, fits the card at 1280 px: the widest cells
    # (a sign-in moment, a badge, the menu) are on the page now.
    fits = "w => w.scrollWidth <= w.clientWidth + 1"
    assert page.locator(".table-wrap:has(.member-table)").evaluate(fits)
    _menu(page, "ann@acme.test", "Ann").click()
    _row(page, "ann@acme.test").get_by_role("button", name="Reactivate").click()
    expect(page.get_by_text("Ann is active again, as a member.")).to_be_visible()
    expect(_row(page, "ann@acme.test")).to_contain_text("active")

    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, "members-390")
    page.set_viewport_size({"width": 1280, "height": 900})

    # The audit log filtered by this admin names their events in words, and a row's
    # details open in place.
    page.goto(f"{base}/o/{org.slug}/settings/events")
    page.get_by_label("Actor").select_option(label="Acme Owner")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("tbody tr")
    for name in ("Member invited", "Role changed", "Member deactivated", "Member added"):
        expect(rows.filter(has=page.locator("td.audit-event", has_text=name)).first).to_be_visible()
    expect(rows.filter(has_text="Invitation accepted")).to_have_count(0)  # Nina's, not the owner's
    changed = rows.filter(has=page.locator("td.audit-event", has_text="Role changed")).first
    detail = changed.get_by_text("member.role_changed")
    expect(detail).to_be_hidden()
    changed.locator("summary").click()
    expect(detail).to_be_visible()
    expect(changed.locator("dt", has_text="Old role")).to_be_visible()
    _shot(page, "audit-by-actor-1280")
    context.close()


def test_pending_invitations_resend_by_keyboard_and_revoke_by_mouse(browser, live_server, org):
    base = live_server.url
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    browser_sign_in(page, base, org.owner_email)
    client = live_server.app.test_client()
    for email in ("pia@acme.test", "pat@acme.test"):
        made = client.post(org.url("/invitations"), json={"email": email}, headers=org.headers)
        assert made.status_code == 201
    page.goto(f"{base}/o/{org.slug}/settings/members")
    page.get_by_role("link", name="2 pending invitations").click()
    expect(page.locator("tbody tr")).to_have_count(2)
    expect(page.get_by_label("Status")).to_have_value("pending")
    # At phone width each cell names its column and nothing scrolls sideways.
    first = page.locator("tbody tr").first.locator("td").nth(1)
    assert first.evaluate("el => getComputedStyle(el, '::before').content") == '"Role: "'
    assert page.locator("html").evaluate("el => el.scrollWidth") <= 390

    # Resend by keyboard: the new link is shown once.
    summary = _menu(page, "pia@acme.test", "pia")
    summary.focus()
    page.keyboard.press("Enter")
    resend = _row(page, "pia@acme.test").get_by_role("button", name="Resend invitation")
    resend.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="New invitation for pia@acme.test")).to_be_visible()
    expect(page.get_by_label("One-time sign-in link")).to_have_value(re.compile(r"/invite/"))

    # Revoke by mouse, after the question.
    questions = []
    page.goto(f"{base}/o/{org.slug}/settings/members?status=pending")
    page.once("dialog", lambda d: (questions.append(d.message), d.accept()))
    _menu(page, "pat@acme.test", "pat").click()
    _row(page, "pat@acme.test").get_by_role("button", name="Revoke invitation").click()
    expect(page.get_by_text("The invitation to pat@acme.test is revoked")).to_be_visible()
    assert questions[0].startswith("Revoke the invitation to pat@acme.test?")
    expect(page.locator("tbody tr")).to_have_count(1)
    _shot(page, "members-pending-390")
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
