"""The dashboard in headless Chromium: build, drag, span, view filter, PQL error,
publish and read as another member; the printable export draws every chart."""

from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import browser_sign_in

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
#: How long a user-visible change may take on a busy machine (ms).
SHOWN = 20_000


def colored_pixels(png: bytes) -> int:
    """Pixels of a screenshot with a clear hue: chart marks, not text or rules."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(
        count
        for count, (r, g, b) in image.getcolors(maxcolors=1 << 24)
        if max(r, g, b) - min(r, g, b) > 60
    )


def titles(page) -> list[str]:
    return page.locator("#widget-grid .widget-title").all_inner_texts()


def add_widget_in_form(page, title: str, chart_type: str) -> None:
    page.click("a.add-widget")
    page.fill("#f-title", title)
    page.select_option("#f-chart_type", chart_type)
    # The preview follows the form before anything is saved.
    expect(page.locator(f"#widget-preview [data-chart-type={chart_type}]")).to_be_visible(
        timeout=SHOWN
    )
    page.click("button[value=save]")
    page.wait_for_selector(f"#widget-grid .widget-title:text-is('{title}')")


def test_build_drag_span_filter_publish(live_server, world: World, page, browser):
    base = live_server.url
    failed: list[str] = []
    # A preview still in flight when the form is saved is aborted by the navigation:
    # not a failure anyone sees. Anything else is.
    page.on(
        "requestfailed",
        lambda r: None if r.failure == "net::ERR_ABORTED" else failed.append(r.url),
    )
    browser_sign_in(page, base, world.acme.owner_email)
    page.goto(f"{base}/o/{world.acme.slug}/dashboards")
    page.fill("#f-name", "Team health")
    page.click("text=Create dashboard")
    page.wait_for_selector("h1:text-is('Team health')")
    assert page.locator(".empty-state").is_visible()

    add_widget_in_form(page, "First", "bar")
    add_widget_in_form(page, "Second", "number")
    add_widget_in_form(page, "Third", "table")
    assert titles(page) == ["First", "Second", "Third"]
    # Each card loaded its body: a drawn chart, a headline number, a table.
    page.wait_for_selector("#widget-grid .widget-card .main-svg")
    page.wait_for_selector("#widget-grid .headline-value")
    page.wait_for_selector("#widget-grid .widget-table tbody tr")
    assert page.locator(".headline-value").inner_text() == "6"
    assert page.locator(".widget-table tbody tr").count() == 4

    # Drag the third card's handle onto the first card, both on screen as a user
    # would have them (a pointer outside the viewport delivers no events).
    page.locator("#widget-grid").evaluate("grid => grid.scrollIntoView()")
    cards = page.locator("#widget-grid .widget-card")
    with page.expect_response(lambda r: r.url.endswith("/widgets/order")) as order:
        handle = cards.nth(2).locator(".drag-handle").bounding_box()
        target = cards.nth(0).bounding_box()
        page.mouse.move(handle["x"] + 4, handle["y"] + 4)
        page.mouse.down()
        page.mouse.move(target["x"] + 20, target["y"] + 20, steps=12)
        page.mouse.move(target["x"] + 10, target["y"] + 10, steps=4)
        page.mouse.up()
    assert order.value.status == 204
    page.reload()
    assert titles(page) == ["Third", "First", "Second"]

    # Toggle the span of "First": the card widens at once and stays wide.
    first = page.locator("#widget-grid .widget-card", has_text="First")
    # The card's controls are in its "⋯" menu (issue #15).
    first.locator(".card-menu-button").click()
    with page.expect_response(lambda r: "/span" in r.url):
        first.locator(".span-toggle").click()
    page.wait_for_selector("#widget-grid .widget-card.span-2")
    page.reload()
    assert "span-2" in page.locator("#widget-grid .widget-card", has_text="First").get_attribute(
        "class"
    )

    # Edit "First" into a donut: the preview redraws before anything is saved.
    first = page.locator("#widget-grid .widget-card", has_text="First")
    first.locator(".card-menu-button").click()
    first.locator(".edit-widget").click()
    page.select_option("#f-chart_type", "donut")
    expect(page.locator("#widget-preview [data-chart-type=donut] .main-svg").first).to_be_visible(
        timeout=SHOWN
    )
    page.click("button[value=save]")
    card = page.locator("#widget-grid .widget-card", has_text="First")
    card.locator("[data-chart-type=donut] .main-svg").first.wait_for()
    assert card.locator(".pielayer").count() == 1

    # A view filter narrows this view only and lives in the URL.
    page.fill("#view-filter", "priority = low")
    page.click("text=Apply")
    page.wait_for_url(re.compile(r".*filter=priority"))
    page.wait_for_selector(".headline-value")
    assert page.locator(".headline-value").inner_text() == "1"
    page.click("a.clear-filter")
    page.wait_for_url(re.compile(r"^[^?]*$"))
    page.wait_for_selector(".headline-value")
    assert page.locator(".headline-value").inner_text() == "6"

    # A PQL error shows inline, with its position.
    page.fill("#view-filter", "priority = high AND")
    page.click("text=Apply")
    error = page.locator(".filter-error")
    error.wait_for()
    assert "line 1, column 20" in error.inner_text()

    # Publish; another member reads it without any edit control.
    page.goto(page.url.split("?")[0])
    page.click("text=Publish to workspace")
    page.wait_for_selector("text=Make private")
    url = page.url
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        mia = other.new_page()
        browser_sign_in(mia, base, world.member.owner_email)
        mia.goto(url)
        mia.wait_for_selector("#widget-grid .widget-card .main-svg")
        assert titles(mia) == ["Third", "First", "Second"]
        for control in (
            ".drag-handle",
            ".span-toggle",
            ".edit-widget",
            ".remove-widget",
            ".move-widget",
            ".add-widget",
            ".dashboard-settings",
            "text=Make private",
            "[data-sortable]",
        ):
            assert mia.locator(control).count() == 0, control
    finally:
        other.close()
    assert failed == []


def test_a_choice_made_while_the_page_loads_still_updates_the_preview(
    live_server, world: World, client, page
):
    """The widget form is on screen before the page's scripts are ready; a chart chosen
    then must still reach the preview. Plotly loads async, so the form does not wait
    for it: with its download held back, the choice reaches the preview at once and
    the chart is drawn the moment Plotly arrives."""
    dash = new_dashboard(client, world.acme, name="Slow network")
    browser_sign_in(page, live_server.url, world.acme.owner_email)
    held = []
    page.route("**/vendor/plotly-basic.min.js*", lambda route: held.append(route))
    page.goto(
        f"{live_server.url}/o/{world.acme.slug}/dashboards/{dash['id']}/widgets/new",
        wait_until="commit",
    )
    page.select_option("#f-chart_type", "donut")
    donut = page.locator("#widget-preview [data-chart-type=donut]")
    expect(donut).to_be_visible(timeout=SHOWN)
    assert len(held) == 1  # Plotly had not arrived
    expect(donut.locator(".main-svg")).to_have_count(0)
    held[0].continue_()
    expect(donut.locator(".main-svg").first).to_be_visible(timeout=SHOWN)


def test_export_page_draws_every_chart_and_prints(live_server, world: World, client, page):
    dash = new_dashboard(client, world.acme, name="Printable")
    kinds = ["bar", "line", "area", "donut", "pie", "number", "table"]
    for kind in kinds:
        add_widget(client, world.acme, dash["id"], title=f"W {kind}", chart_type=kind)
    failed: list[str] = []
    requests: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("request", lambda r: requests.append(r.url))
    page.add_init_script("window.print = function () { window.__printed = true; };")
    browser_sign_in(page, live_server.url, world.acme.owner_email)
    # The signed-in page's own late requests (its icon) are not the export's.
    page.wait_for_load_state("networkidle")
    requests.clear()
    export_path = world.url(f"/dashboards/{dash['id']}/export.html")
    page.goto(live_server.url + export_path)
    page.wait_for_function("window.__printed === true", timeout=20000)
    assert failed == []
    assert len(requests) == 1  # the page itself: Plotly is inlined
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-export.png"), full_page=True)
    for kind in kinds:
        section = page.locator("section.widget", has_text=f"W {kind}")
        drawn = section.locator(".main-svg").count()
        painted = colored_pixels(section.screenshot())
        if kind in ("number", "table"):
            assert drawn == 0 and painted < 50, (kind, painted)
        else:
            assert drawn >= 1, kind
            assert section.locator(".main-svg").first.bounding_box()["height"] > 100
            # The chart is on screen, not just in the DOM: its marks are painted.
            assert painted > 500, (kind, painted)
    assert page.locator(".headline-value").inner_text() == "6"
    assert page.locator("thead").evaluate("e => getComputedStyle(e).display") == (
        "table-header-group"
    )
