"""The refused password sign-in of an enforced domain, in a browser: its message
reads as a paragraph above its way out, at 1280 and 390 px, and that way out (the
directory form) opens with the focus on its username field."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import (
    PASSWORD,
    add_person,
    make_org,
    member_id,
    store_ldap,
    verify_domains,
)

pytestmark = pytest.mark.browser


def test_a_refused_sign_in_shows_its_way_out_under_the_message(browser, live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    verify_domains(app, acme.org_id, "acme.test")
    add_person(app, acme.org_id, "bob@acme.test")
    store_ldap(app, acme.org_id)
    client = app.test_client()
    owner = member_id(app, acme.org_id, acme.owner_email)
    assert client.put(acme.url(f"/break-glass/{owner}"), headers=acme.headers).status_code == 200
    state = client.get(acme.url("/enforced-sso"), headers=acme.headers).get_json()
    url = acme.url(f"/domains/{state['domains'][0]['domain_id']}/enforced-sso")
    assert client.put(url, headers=acme.headers, json={"confirm": True}).status_code == 200

    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 844})
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/signin")
            page.locator("#email").fill("bob@acme.test")
            page.locator("#password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in", exact=True).click()
            message = page.locator(".flash-error")
            expect(message).to_contain_text("Sign in with your directory account instead")
            way_out = message.get_by_role("link", name="Sign in with your directory")
            text = message.locator("p").first.bounding_box()
            button = way_out.bounding_box()
            box = message.bounding_box()
            assert button["y"] >= text["y"] + text["height"] - 1, (width, text, button)
            assert button["x"] + button["width"] <= box["x"] + box["width"], (width, button, box)
            assert text["width"] > box["width"] / 2, (width, text, box)  # not a word a line
            way_out.click()
            expect(page.locator("#ldap-username")).to_be_focused()
        finally:
            context.close()
