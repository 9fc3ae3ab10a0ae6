"""Downloading the PDF in a browser: "Download PDF" starts a job (docs/jobs.md#pdf-export)
and the page shows its progress where the button is, polled by HTMX, with a progress
bar and what the worker is doing; then a link to the file, named after the dashboard.
A refusal or a failure shows the server's own words. The render is held by the test
until the progress is seen, so the check does not race a fast render."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import browser_sign_in
from workspace.analytics.dashboards import export

pytestmark = pytest.mark.browser

SHOWN = 20_000  # ms a visible change may take on a busy machine
SHOTS = Path("/tmp/shots")


def open_dashboard(page, live_server, client, world: World, name: str = "Quarterly review"):
    dash = new_dashboard(client, world.acme, name=name)
    add_widget(client, world.acme, dash["id"], title="By status", chart_type="bar")
    add_widget(client, world.acme, dash["id"], title="Total", chart_type="number")
    browser_sign_in(page, live_server.url, world.acme.owner_email)
    page.goto(f"{live_server.url}/o/{world.acme.slug}/dashboards/{dash['id']}")
    return page.get_by_role("button", name="Download PDF")


@pytest.fixture
def held_render(monkeypatch):
    """The real render, started only once the test says so."""
    release = threading.Event()
    real = export.render_pdf

    def render(*args, **kwargs):
        assert release.wait(60), "the test never released the render"
        return real(*args, **kwargs)

    monkeypatch.setattr(export, "render_pdf", render)
    yield release
    release.set()


def test_download_pdf_shows_the_jobs_progress_then_offers_the_file(
    live_server, client, world: World, page, tmp_path, embedded_worker, held_render
):
    button = open_dashboard(page, live_server, client, world)
    button.click()
    status = page.locator("#pdf-progress").get_by_role("status")
    expect(status).to_contain_text("Computing 2 widgets", timeout=SHOWN)
    expect(status.get_by_label("Progress")).to_be_visible()
    expect(status).to_have_attribute("aria-live", "polite")
    assert "/dashboards/" in page.url and "/jobs/" not in page.url  # the page stayed
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "g4-pdf-preparing-1280.png"))
    held_render.set()

    link = status.get_by_role("link", name="Download quarterly-review.pdf")
    expect(link).to_be_visible(timeout=SHOWN)
    with page.expect_download(timeout=60_000) as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename == "quarterly-review.pdf"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.read_bytes().startswith(b"%PDF")


def test_a_failed_render_shows_the_servers_message(
    live_server, client, world: World, page, embedded_worker, monkeypatch
):
    button = open_dashboard(page, live_server, client, world)
    message = "PDF export failed on this server: the charts could not be drawn (TimeoutError)."

    def fail(*args, **kwargs):
        raise export.PdfUnavailable(message)

    monkeypatch.setattr(export, "render_pdf", fail)
    button.click()
    expect(page.locator("#pdf-progress").get_by_role("status")).to_have_text(message, timeout=SHOWN)
    # Clicking again tries again, and this time it works.
    monkeypatch.undo()
    button.click()
    link = page.locator("#pdf-progress").get_by_role("link", name="Download quarterly-review.pdf")
    expect(link).to_be_visible(timeout=60_000)


def test_progress_is_usable_on_a_phone(live_server, client, world: World, browser, embedded_worker):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        button = open_dashboard(phone, live_server, client, world, name="Phone")
        button.click()
        link = phone.locator("#pdf-progress").get_by_role("link", name="Download phone.pdf")
        expect(link).to_be_visible(timeout=60_000)
        box = link.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390
        with phone.expect_download(timeout=60_000) as download_info:
            link.click()
        assert download_info.value.suggested_filename == "phone.pdf"
        SHOTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(SHOTS / "g4-pdf-downloaded-390.png"))
    finally:
        context.close()


def test_the_printable_page_prints_the_same_grid_in_chromium(
    live_server, client, world: World, page, tmp_path
):
    """export.html through the browser's own print: two columns, the wide widget across
    both, no widget split, the header and page numbers from the @page margin boxes."""
    import subprocess

    dash = new_dashboard(client, world.acme, name="Printed")
    for title, chart_type, span in [
        ("Wide status", "bar", 2),
        ("Left donut", "donut", 1),
        ("Right pie", "pie", 1),
        ("Count", "number", 1),
    ]:
        add_widget(client, world.acme, dash["id"], title=title, chart_type=chart_type, span=span)
    page.add_init_script("window.print = function () {};")
    browser_sign_in(page, live_server.url, world.acme.owner_email)
    page.goto(live_server.url + world.url(f"/dashboards/{dash['id']}/export.html"))
    expect(page.locator("section.widget .js-plotly-plot")).to_have_count(3, timeout=SHOWN)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "g4-export-1280.png"), full_page=True)

    page.emulate_media(media="print")
    box = {
        t: page.locator("section.widget", has_text=t).bounding_box()
        for t in ("Wide status", "Left donut", "Right pie", "Count")
    }
    assert abs(box["Left donut"]["y"] - box["Right pie"]["y"]) < 1
    assert box["Right pie"]["x"] > box["Left donut"]["x"] + box["Left donut"]["width"]
    assert box["Wide status"]["width"] > 2 * box["Left donut"]["width"]
    assert box["Count"]["y"] > box["Left donut"]["y"]

    pdf = tmp_path / "printed.pdf"
    pdf.write_bytes(page.pdf(prefer_css_page_size=True, print_background=True))
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Printed" in text and "Computed " in text and "Page 1 of 1" in text

    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(media="screen")
    page.reload()  # charts are drawn at the width the page opens with
    expect(page.locator("section.widget .js-plotly-plot")).to_have_count(3, timeout=SHOWN)
    chart = page.locator("section.widget", has_text="Wide status").locator(".main-svg").first
    chart_box = chart.bounding_box()
    assert chart_box["x"] + chart_box["width"] <= 390
    page.screenshot(path=str(SHOTS / "g4-export-390.png"), full_page=True)
    narrow = page.locator("section.widget", has_text="Left donut").bounding_box()
    assert narrow["x"] + narrow["width"] <= 390
