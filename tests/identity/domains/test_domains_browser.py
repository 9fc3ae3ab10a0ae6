"""The domains table in a real browser at 1280 px: its header row sits inside the card
and each row's Actions cell stays a table cell, level with the row. As a flex box
(the page header's ``.actions`` rule matched the cell too) it left the row's lines and
its buttons floated out of line; the same cell is on Group sync and Enforced SSO."""

from __future__ import annotations

import pytest

from tests.factories import browser_sign_in, make_org

pytestmark = pytest.mark.browser


def test_the_domain_rows_and_their_actions_line_up(page, live_server):
    app = live_server.app
    acme = make_org(app, "Acme", "owner@acme.test")
    client = app.test_client()
    resp = client.post(acme.url("/domains"), json={"domain": "acme.test"}, headers=acme.headers)
    assert resp.status_code == 201, resp.get_json()
    page.set_viewport_size({"width": 1280, "height": 900})
    browser_sign_in(page, live_server.url, acme.owner_email)
    page.goto(f"{live_server.url}/o/{acme.slug}/settings/domains")
    cell = page.locator(".domain-table tbody td.actions").first
    assert cell.evaluate("td => getComputedStyle(td).display") == "table-cell"
    row, button = (
        cell.locator("xpath=..").bounding_box(),
        cell.locator("button").first.bounding_box(),
    )
    assert row["y"] <= button["y"] and button["y"] + button["height"] <= row["y"] + row["height"]
    card = page.locator(".card:has(.domain-table)").bounding_box()
    header = page.locator(".domain-table thead th").first.bounding_box()
    assert header["y"] >= card["y"] + 1, "the header row is clipped by the card's edge"
