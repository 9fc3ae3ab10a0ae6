"""The dashboard canvas in headless Chromium (issue #15): a wide widget leaves no hole,
the card menu works from the keyboard, and the auto-refresh choice is remembered per
dashboard; screenshots at 1280 and 390 px go to test-artifacts/."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import browser_sign_in

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
AXE = Path(__file__).resolve().parents[2] / "browser_assets" / "axe.min.js"
SHOWN = 20_000


def _url(base: str, world: World, dash_id: str) -> str:
    return f"{base}/o/{world.acme.slug}/dashboards/{dash_id}"


#: The grid's box and its cards' boxes, measured in one go (nothing moves in between).
MEASURE = """grid => {
  const box = el => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  return [box(grid), Array.from(grid.querySelectorAll('.widget-card')).map(box)];
}"""


def card_rows(page) -> tuple[dict, list[list[dict]]]:
    """The grid's box and its cards' boxes grouped into rows (by their top edge)."""
    page.wait_for_load_state("networkidle")
    grid, boxes = page.locator("#widget-grid").evaluate(MEASURE)
    rows: list[list[dict]] = []
    for box in sorted(boxes, key=lambda b: (round(b["y"]), b["x"])):
        if rows and abs(rows[-1][0]["y"] - box["y"]) < 2:
            rows[-1].append(box)
        else:
            rows.append([box])
    return grid, rows


def assert_no_hole(page) -> None:
    """Every row but the last is filled edge to edge: the cards tile the grid."""
    grid, rows = card_rows(page)
    for row in rows[:-1]:
        left = min(b["x"] for b in row)
        right = max(b["x"] + b["width"] for b in row)
        assert abs(left - grid["x"]) < 2 and abs(right - (grid["x"] + grid["width"])) < 2, rows
    # Rows follow each other without an empty band between them.
    for above, below in itertools.pairwise(rows):
        bottom = max(b["y"] + b["height"] for b in above)
        assert below[0]["y"] - bottom < 40, rows


def open_menu_item(page, title: str, item: str) -> None:
    card = page.locator(f"#widget-grid .widget-card[aria-label='{title}']")
    card.locator(f"summary[aria-label='Actions for {title}']").click()
    card.locator(".card-menu-list [role=menuitem]", has_text=item).click()


def test_a_wide_widget_leaves_no_hole(live_server, client, world: World, page, browser):
    dash = new_dashboard(client, world.acme, name="Grid")
    for title in ("A", "B", "C", "D", "E"):
        add_widget(client, world.acme, dash["id"], title=title)
    base = live_server.url
    browser_sign_in(page, base, world.acme.owner_email)
    page.goto(_url(base, world, dash["id"]))
    page.wait_for_selector("#widget-grid .widget-card")
    assert_no_hole(page)

    # B made wide: without dense packing A would sit alone on the first row.
    with page.expect_response(lambda r: "/span" in r.url):
        open_menu_item(page, "B", "Make wide")
    expect(page.locator("#widget-grid .widget-card.span-2")).to_have_count(1, timeout=SHOWN)
    assert_no_hole(page)
    _, rows = card_rows(page)
    assert len(rows[0]) == 2 and len(rows[1]) == 1  # C moved up beside A; B is a full row
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "canvas-1280.png"), full_page=True)

    # The spans and the saved order survive a reload.
    page.reload()
    page.wait_for_selector("#widget-grid .widget-card.span-2")
    assert page.locator("#widget-grid .widget-title").all_inner_texts() == list("ABCDE")
    assert_no_hole(page)

    # D and E wide too: A and C pair up, and nothing is left alone before a wide card.
    for title in ("D", "E"):
        with page.expect_response(lambda r: "/span" in r.url):
            open_menu_item(page, title, "Make wide")
        # The answer arrives before htmx swaps the card in: wait for the swap, or the
        # grid reflows under the pointer while the next card's menu is being opened.
        wide = page.locator(f"#widget-grid .widget-card.span-2[aria-label='{title}']")
        expect(wide).to_have_count(1, timeout=SHOWN)
    expect(page.locator("#widget-grid .widget-card.span-2")).to_have_count(3, timeout=SHOWN)
    assert_no_hole(page)
    # A wide as well: C is the one narrow card left, followed only by wide ones; it is
    # drawn across its row rather than leave a hole beside it.
    with page.expect_response(lambda r: "/span" in r.url):
        open_menu_item(page, "A", "Make wide")
    expect(page.locator("#widget-grid .widget-card.span-2")).to_have_count(4, timeout=SHOWN)
    assert_no_hole(page)
    assert "fill-row" in page.locator("#widget-grid .widget-card[aria-label='C']").get_attribute(
        "class"
    )

    # A phone: one column, every card the grid's width, nothing over the title.
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        small = phone.new_page()
        browser_sign_in(small, base, world.acme.owner_email)
        small.goto(_url(base, world, dash["id"]))
        small.wait_for_selector("#widget-grid .widget-card")
        grid, rows = card_rows(small)
        assert all(len(row) == 1 for row in rows)
        for row in rows:
            assert abs(row[0]["width"] - grid["width"]) < 2
        for card in small.locator("#widget-grid .widget-card").all():
            title = card.locator(".widget-title").bounding_box()
            button = card.locator(".card-menu-button").bounding_box()
            assert title["x"] + title["width"] <= button["x"] + 1  # side by side, no overlap
        small.screenshot(path=str(ARTIFACTS / "canvas-390.png"), full_page=True)
    finally:
        phone.close()


def test_the_card_menu_by_keyboard(live_server, client, world: World, page):
    dash = new_dashboard(client, world.acme, name="Keys")
    add_widget(client, world.acme, dash["id"], title="Only")
    base = live_server.url
    browser_sign_in(page, base, world.acme.owner_email)
    page.goto(_url(base, world, dash["id"]))
    menu = page.locator("#widget-grid details.card-menu")
    button = menu.locator("summary[aria-label='Actions for Only']")
    items = menu.locator("[role=menuitem]")
    expect(items.first).to_be_hidden()

    # Tab from the top of the page until the menu button has the focus.
    page.locator("body").focus()
    for _ in range(80):
        page.keyboard.press("Tab")
        if button.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("Tab never reached the card's menu button")
    expect(button).to_be_focused()
    assert button.evaluate("el => getComputedStyle(el).opacity") == "1"  # shown on focus

    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("open", "")
    expect(items.first).to_be_visible()
    # The open menu passes axe-core (serious and critical rules).
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [v["id"] for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == []
    # The only card can move neither earlier nor later: those two are not offered.
    assert items.locator("visible=true").all_inner_texts() == [
        "Edit",
        "Make wide",
        "Duplicate",
        "Remove",
    ]
    items = menu.locator("[role=menuitem]:visible")
    page.keyboard.press("ArrowDown")
    expect(items.nth(0)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(items.nth(1)).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(items.last).to_be_focused()  # wraps around
    assert items.last.get_attribute("data-confirm")

    page.keyboard.press("Escape")
    expect(items.first).to_be_hidden()
    expect(button).to_be_focused()

    # Enter again, Tab into the menu, Enter on "Duplicate" copies the widget.
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(items.nth(0)).to_be_focused()
    for _ in range(2):
        page.keyboard.press("Tab")
    expect(items.nth(2)).to_be_focused()
    assert items.nth(2).inner_text() == "Duplicate"
    page.keyboard.press("Enter")
    page.wait_for_selector("#widget-grid .widget-title:text-is('Copy of Only')")
    assert page.locator("#widget-grid .widget-title").all_inner_texts() == ["Only", "Copy of Only"]
    # The page came back with the focus on the copy's menu, where a keyboard goes on.
    copy_menu = page.get_by_label("Actions for Copy of Only", exact=True).first
    expect(copy_menu).to_be_focused()
    # Now the first card moves only later, the last only earlier.
    first, last = page.locator("#widget-grid section.widget-card").all()
    moves = "[role=menuitem].move-widget"
    first.locator("summary").click()
    assert first.locator(moves).locator("visible=true").all_inner_texts() == ["Move later"]
    page.keyboard.press("Escape")
    last.locator("summary").click()
    assert last.locator(moves).locator("visible=true").all_inner_texts() == ["Move earlier"]
    # Moved earlier by keyboard, the card keeps the focus in its new place.
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    last.get_by_role("menuitem", name="Move earlier").focus()
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    expect(page.locator("#widget-grid .widget-title").first).to_have_text("Copy of Only")
    expect(copy_menu).to_be_focused()
    # Removed (after its confirmation), the focus goes to the next card's menu.
    page.once("dialog", lambda dialog: dialog.accept())
    page.keyboard.press("Enter")
    page.get_by_role("menuitem", name="Remove").locator("visible=true").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#widget-grid .widget-title")).to_have_count(1)
    expect(page.get_by_label("Actions for Only", exact=True).first).to_be_focused()


def test_auto_refresh_is_remembered_per_dashboard(live_server, client, world: World, page):
    first = new_dashboard(client, world.acme, name="First")
    second = new_dashboard(client, world.acme, name="Second")
    for dash in (first, second):
        add_widget(client, world.acme, dash["id"], title="Count", chart_type="number")
    base = live_server.url
    browser_sign_in(page, base, world.acme.owner_email)
    page.goto(_url(base, world, first["id"]))
    choice = page.locator("select#auto-refresh")
    expect(choice).to_have_value("0")
    choice.select_option("5")
    page.reload()
    expect(page.locator("select#auto-refresh")).to_have_value("5")
    page.goto(_url(base, world, second["id"]))
    expect(page.locator("select#auto-refresh")).to_have_value("0")  # its own setting
    page.goto(_url(base, world, first["id"]))
    expect(page.locator("select#auto-refresh")).to_have_value("5")
    page.locator("select#auto-refresh").select_option("0")
    page.reload()
    expect(page.locator("select#auto-refresh")).to_have_value("0")


def test_refresh_recomputes_in_place(live_server, client, world: World, page):
    dash = new_dashboard(client, world.acme, name="Live")
    add_widget(client, world.acme, dash["id"], title="Count", chart_type="number")
    base = live_server.url
    browser_sign_in(page, base, world.acme.owner_email)
    page.goto(_url(base, world, dash["id"]))
    page.evaluate("() => { window.notReloaded = true; }")

    # "Refresh" recomputes the bodies in place: a new "Updated" time, no page load.
    stamp = page.locator("#computed-at")
    expect(stamp).to_have_attribute("datetime", _any(), timeout=SHOWN)
    before = stamp.get_attribute("datetime")
    page.wait_for_timeout(1100)
    with page.expect_response(lambda r: "/bodies" in r.url):
        page.click("[data-refresh]")
    expect(stamp).not_to_have_attribute("datetime", before, timeout=SHOWN)
    # In the org's zone, as the server wrote it, not the browser's "2:19:46 PM".
    expect(stamp).to_have_text(re.compile(r"^\d\d:\d\d:\d\d UTC$"))
    expect(page.locator(".headline-value")).to_have_text("6")
    assert page.evaluate("() => window.notReloaded") is True


def _any():
    return re.compile(r"\d{4}-\d\d-\d\dT")
