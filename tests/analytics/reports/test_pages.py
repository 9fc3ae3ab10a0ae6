"""The analytics page (a tab per rollup, HTMX partials)."""

from __future__ import annotations

import re
import uuid

import pytest

from tests.conftest import login

TABS = ["overview", "flow", "workload", "scatter", "forecast", "pivot", "custom"]


def page(client, url, htmx=False):
    resp = client.get(url, headers={"HX-Request": "true"} if htmx else {}, follow_redirects=True)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    return resp.get_data(as_text=True)


@pytest.mark.parametrize("tab", TABS)
def test_each_tab_renders_full_and_as_partial(client, dataset, tab):
    login(client, dataset.org.owner_email)
    url = f"/o/{dataset.org.slug}/analytics/{tab}"
    full = page(client, url)
    assert "<html" in full and "plotly-basic.min.js" in full and "js/analytics.js" in full
    for label in ("Overview", "Flow", "Workload", "Scatter", "Forecast", "Pivot", "Custom"):
        assert f">{label}</a>" in full
    active = re.findall(r'class="tab active" aria-current="page".*?>(\w+)</a>', full, re.S)
    assert active == [tab.capitalize()]
    partial = page(client, url, htmx=True)
    assert "<html" not in partial and 'id="analytics-loading"' in partial
    if tab not in ("pivot",):
        assert "data-plotly=" in full, "each tab but the pivot table draws a chart"


def test_overview_shows_the_figures_and_scope_selector(client, dataset):
    login(client, dataset.org.owner_email)
    html = page(client, f"/o/{dataset.org.slug}/analytics")
    total = client.get(dataset.url("/analytics/overview"), headers=dataset.org.headers).get_json()[
        "total"
    ]
    assert f'<div class="stat-value">{total}</div>' in html
    assert "Whole organization" in html and "Web App (WEB)" in html
    assert "/analytics/export.csv" in html
    scoped = page(client, f"/o/{dataset.org.slug}/analytics?project_id={dataset.project_ids[0]}")
    assert f'value="{dataset.project_ids[0]}" selected' in scoped


def test_plotly_is_loaded_only_on_analytics_pages(client, dataset):
    login(client, dataset.org.owner_email)
    assert "plotly-basic" not in page(client, f"/o/{dataset.org.slug}/")
    assert "plotly-basic" not in page(client, f"/o/{dataset.org.slug}/dashboards")


def test_empty_org_shows_empty_states(client, acme):
    login(client, acme.owner_email)
    for tab, text in (
        ("overview", "No tasks to count yet"),
        ("workload", "Nobody holds"),
        ("flow", "No open work"),
        ("scatter", "No cycles yet"),
        ("forecast", "Nothing completed"),
        ("pivot", "No tasks to count yet"),
    ):
        assert text in page(client, f"/o/{acme.slug}/analytics/{tab}"), tab


def test_bad_inputs_are_explained_not_failed(client, dataset):
    login(client, dataset.org.owner_email)
    base = f"/o/{dataset.org.slug}/analytics"
    html = page(client, f"{base}/forecast?weeks=99")
    assert "Ignored an invalid value for weeks" in html
    html = page(client, f"{base}?project_id={uuid.uuid4()}")
    assert "No such project in this organization. Showing the whole organization." in html
    html = page(client, f"{base}/custom?filter=status+%3D+%22Doing%22")
    assert "no status named &#39;Doing&#39;" in html and "line 1, column 10" in html
    assert 'aria-invalid="true"' in html
    assert client.get(f"{base}/velocity").status_code == 404


def test_custom_tab_draws_the_chart(client, dataset):
    login(client, dataset.org.owner_email)
    html = page(
        client,
        f"/o/{dataset.org.slug}/analytics/custom?metric=open&dimension=kind"
        "&filter=priority+IN+(high,+urgent)",
    )
    assert "Open tasks by kind" in html and 'id="fig-custom"' in html


def test_the_custom_tables_list_values_as_their_charts_draw_them(client, dataset):
    """The table under a chart by priority listed "medium, none, low, high, urgent",
    in lower case and largest first, under a chart drawn Urgent to None: both now
    read the same, in the chart's order and words (the Custom tab and Ask a chart)."""
    login(client, dataset.org.owner_email)
    order = ["Urgent", "High", "Medium", "Low", "None"]

    def listed(html):
        table = re.search(
            r"<table class=\"table\"><thead><tr><th>Priority</th>.*?</table>", html, re.S
        )
        return re.findall(r"<tr><td>([^<]+)</td>", table.group(0))

    custom = listed(page(client, f"/o/{dataset.org.slug}/analytics/custom?dimension=priority"))
    assert custom and custom == [p for p in order if p in custom]
    answer = client.post(
        f"/o/{dataset.org.slug}/analytics/ask",
        data={"text": "tasks by priority"},
        headers={"HX-Request": "true"},
    ).get_data(as_text=True)
    assert listed(answer) == custom


def test_pages_need_sign_in_and_membership(client, dataset):
    resp = client.get(f"/o/{dataset.org.slug}/analytics")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
    login(client, dataset.other.owner_email)
    assert client.get(f"/o/{dataset.org.slug}/analytics").status_code == 404
    assert client.get(f"/o/{dataset.org.slug}/dashboards").status_code == 404


def test_nav_links_analytics_and_dashboards(client, acme):
    login(client, acme.owner_email)
    html = page(client, f"/o/{acme.slug}/analytics")
    assert 'href="/o/acme/dashboards"' in html and 'href="/o/acme/analytics"' in html


def test_scope_picker_keeps_the_tab_options(client, dataset):
    login(client, dataset.org.owner_email)
    html = page(client, f"/o/{dataset.org.slug}/analytics/pivot?row=kind&col=priority")
    picker = html.split('id="scope-project"')[0].rsplit("<form", 1)[1]
    assert 'name="row" value="kind"' in picker and 'name="col" value="priority"' in picker
