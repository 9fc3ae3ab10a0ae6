"""In Chromium: "Urgent" is painted in one colour on the analytics page, on a
dashboard and in the dashboard's printable export, read from the drawn SVG."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import add_widget, browser_sign_in, create_project, new_dashboard, new_task

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SHOWN = 20_000
URGENT = "rgb(197, 48, 48)"  # palette.PRIORITY_COLORS["urgent"], #c53030

#: The colour of the bar whose axis label is ``label``, and the labels in axis order.
BAR_FILL = """(el, label) => {
  const ticks = Array.from(el.querySelectorAll('.xtick text')).map(t => t.textContent);
  const bars = Array.from(el.querySelectorAll('.bars .point path'));
  const i = ticks.indexOf(label);
  return {ticks: ticks, fill: i < 0 || !bars[i] ? null : getComputedStyle(bars[i]).fill};
}"""


def bar_fill(chart, label: str) -> dict:
    expect(chart.locator(".bars .point path").first).to_be_attached(timeout=SHOWN)
    return chart.evaluate(BAR_FILL, label)


def test_urgent_is_one_colour_on_analytics_dashboard_and_export(live_server, client, acme, page):
    project = create_project(client, acme)
    for priority in ("urgent", "urgent", "high", "low", "low", "low", "none"):
        new_task(client, acme, project, priority=priority)
    dash = new_dashboard(client, acme, name="Priorities")
    add_widget(
        client, acme, dash["id"], title="By priority", chart_type="bar", dimension="priority"
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    browser_sign_in(page, live_server.url, acme.owner_email)

    page.goto(f"{live_server.url}/o/{acme.slug}/analytics/custom?dimension=priority")
    analytics = bar_fill(page.locator("[data-plotly='fig-custom']"), "Urgent")

    page.goto(f"{live_server.url}/o/{acme.slug}/dashboards/{dash['id']}")
    dashboard = bar_fill(page.locator("#widget-grid [data-plotly]").first, "Urgent")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chart-colours-dashboard.png"), full_page=True)

    page.add_init_script("window.print = function () {};")
    page.goto(live_server.url + acme.url(f"/dashboards/{dash['id']}/export.html"))
    exported = bar_fill(page.locator("[data-plotly]").first, "Urgent")

    # Natural order on the axis, one label case, and one colour, everywhere.
    for seen in (analytics, dashboard, exported):
        assert seen["ticks"] == ["Urgent", "High", "Low", "None"], seen
        assert seen["fill"] == URGENT, seen
