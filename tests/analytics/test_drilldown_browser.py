"""Drill-down in headless Chromium: click a bar, a table row's figure and a headline
number on a dashboard, land on the task list, read its count, compare with the number
clicked; the same from the analytics page's overview card and custom chart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import add_widget, browser_sign_in, new_dashboard

pytestmark = pytest.mark.browser

SHOWN = 20_000
SHOTS = Path("/tmp/shots")
VIEW_FILTER = "priority IN (urgent, high, medium) OR dueDate IS EMPTY"


def list_count(page) -> int:
    """The count the list shows: the org task search says it; a project's list shows
    its rows and "Show more (N left)"."""
    expect(page.locator("#task-table")).to_be_visible(timeout=SHOWN)
    total = page.locator("[data-task-total]")
    if total.count():
        return int(total.inner_text().replace(",", ""))
    rows = page.locator("#task-rows tr[id^=task-]").count()
    more = page.locator("#load-more")
    left = int(re.search(r"\((\d+) left\)", more.inner_text()).group(1)) if more.count() else 0
    return rows + left


def click_first_bar(page, card) -> None:
    """Point at the first bar, then click it, as a mouse does (Plotly picks the
    point under the pointer on hover)."""
    card.locator(".bars .point path").first.scroll_into_view_if_needed()
    box = card.locator(".bars .point path").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] - 4
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def first_bar(page, card) -> tuple[str, int]:
    """The first bar's label and value, from the figure the chart was drawn from."""
    figure = json.loads(card.locator("script[id^=fig-]").text_content())
    trace = figure["data"][0]
    labels, values = trace["x"], trace["y"]
    if trace.get("orientation") == "h":
        labels, values = values, labels
    return str(labels[0]), int(values[0])


def test_click_bar_table_row_and_headline_on_a_dashboard(live_server, dataset, client, page):
    base, org = live_server.url, dataset.org
    board = new_dashboard(client, org, name="Drill", pql_filter="kind != epic")
    common = dict(filter='NOT title ~ "a" OR statusCategory = started')
    bar = add_widget(
        client,
        org,
        board["id"],
        title="By status",
        chart_type="bar",
        metric="count",
        dimension="status",
        **common,
    )
    table = add_widget(
        client,
        org,
        board["id"],
        title="Open by priority",
        chart_type="table",
        metric="open",
        dimension="priority",
        project_id=str(dataset.project_ids[0]),
        **common,
    )
    number = add_widget(
        client,
        org,
        board["id"],
        title="Done",
        chart_type="number",
        metric="done",
        dimension="status",
        **common,
    )
    browser_sign_in(page, base, org.owner_email)
    url = f"{base}/o/{org.slug}/dashboards/{board['id']}?filter={VIEW_FILTER}"

    # A bar.
    page.goto(url)
    card = page.locator(f"#body-{bar['id']}")
    card.locator(".main-svg").first.wait_for(timeout=SHOWN)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "drill-dashboard-1280.png"), full_page=True)
    label, value = first_bar(page, card)
    click_first_bar(page, card)
    expect(page).to_have_url(re.compile(r"/o/acme/tasks\?pql="), timeout=SHOWN)
    assert list_count(page) == value, label
    pql = page.locator("#task-pql").input_value()
    assert pql.startswith("isCounted() AND (kind != epic) AND (priority IN") and "status = " in pql
    page.screenshot(path=str(SHOTS / "drill-search-1280.png"), full_page=True)

    # A table row's figure: a project widget opens the project's list.
    page.goto(url)
    cell = page.locator(f"#body-{table['id']} .widget-table tbody tr").first.locator("a.drill-link")
    expect(cell).to_be_visible(timeout=SHOWN)
    value = int(cell.inner_text())
    cell.click()
    expect(page).to_have_url(re.compile(rf"/projects/{dataset.project_ids[0]}\?pql="))
    assert list_count(page) == value

    # The headline number, by keyboard.
    page.goto(url)
    headline = page.locator(f"#body-{number['id']} .headline-value a")
    expect(headline).to_be_visible(timeout=SHOWN)
    value = int(headline.inner_text().replace(",", ""))
    headline.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/o/acme/tasks\?pql="))
    assert list_count(page) == value


def test_click_overview_card_and_custom_chart_bar(live_server, dataset, page):
    base, org = live_server.url, dataset.org
    browser_sign_in(page, base, org.owner_email)
    page.goto(f"{base}/o/{org.slug}/analytics")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "drill-overview-1280.png"))
    card = page.locator("a.card.stat").first
    value = int(card.locator(".stat-value").inner_text())
    card.click()
    expect(page).to_have_url(re.compile(r"/o/acme/tasks\?pql="))
    assert list_count(page) == value

    page.goto(f"{base}/o/{org.slug}/analytics/custom?dimension=assignee&metric=open")
    chart = page.locator("section.widget").first
    chart.locator(".main-svg").first.wait_for(timeout=SHOWN)
    label, value = first_bar(page, chart)
    click_first_bar(page, chart)
    expect(page).to_have_url(re.compile(r"/o/acme/tasks\?pql="), timeout=SHOWN)
    assert list_count(page) == value, label
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / "drill-search-390.png"), full_page=True)
