"""Sessions end where people notice, in real Chromium (docs/security.md#sessions):
a member deactivated through a real SCIM PATCH gets the sign-in page on the next
page they open, and so does a browser left idle past the org's idle timeout."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.conftest import add_person
from tests.factories import browser_sign_in
from workspace.auth.models import AuthSession
from workspace.extensions import db

pytestmark = pytest.mark.browser


def test_scim_deactivation_sends_the_browser_to_sign_in(page, live_server, app, scim):
    base = live_server.url
    add_person(app, scim.org.org_id, "dee@acme.test")
    browser_sign_in(page, base, "dee@acme.test")
    page.goto(f"{base}/o/acme/projects")
    expect(page.get_by_role("heading", name="Projects")).to_be_visible()

    [dee] = scim.get('/Users?filter=userName eq "dee@acme.test"').get_json()["Resources"]
    resp = scim.patch(f"/Users/{dee['id']}", [{"op": "replace", "path": "active", "value": False}])
    assert resp.status_code == 200 and resp.get_json()["active"] is False

    page.goto(f"{base}/o/acme/projects")
    expect(page).to_have_url(re.compile(r"/signin\?next=/o/acme/projects$"))
    expect(page.get_by_role("button", name="Sign in", exact=True)).to_be_visible()


def test_idle_timeout_sends_the_browser_to_sign_in_and_back(page, live_server, app, acme):
    base = live_server.url
    browser_sign_in(page, base, acme.owner_email)
    page.goto(f"{base}/o/acme/settings/sessions")
    page.get_by_label("Idle timeout (minutes)").fill("5")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Session policy saved")).to_be_visible()

    # Six minutes pass without a request (the session's last-seen moves back).
    with app.app_context():
        for row in db.session.scalars(select(AuthSession)):
            row.last_seen_at -= timedelta(minutes=6)
        db.session.commit()
    page.goto(f"{base}/o/acme/projects")
    expect(page).to_have_url(re.compile(r"/signin\?next=/o/acme/projects$"))
    page.get_by_label("Email", exact=True).fill(acme.owner_email)
    page.get_by_label("Password", exact=True).fill(acme.password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).to_have_url(re.compile(r"/o/acme/projects$"))
