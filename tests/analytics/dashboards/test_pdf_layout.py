"""The PDF keeps the dashboard's grid (two columns, spans, dense packing), never splits
a widget across pages, carries a header (name, filters, computed time in the org's
zone) and "Page n of m" footers; six widgets take two A4 pages; twelve render; the
printable HTML prints the same grid. Page counts and text come from poppler
(pdfinfo, pdftotext), the layout from WeasyPrint's own boxes before the PDF is
written."""

from __future__ import annotations

import re
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from workspace.analytics.dashboards import export, pdf_charts
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.present import WidgetView, present
from workspace.analytics.dashboards.query import DashboardQuery, specs
from workspace.core.models import Org
from workspace.extensions import db

#: (title, chart_type, dimension, span): a realistic six-widget dashboard, two of them
#: wide. Dense packing gives four rows: [Status], [Priority, Kinds], [Per project,
#: Total], [Projects over time].
SIX = [
    ("Status overview", "bar", "status", 2),
    ("Priority mix", "donut", "priority", 1),
    ("Kinds of work", "pie", "kind", 1),
    ("Per project", "table", "project", 1),
    ("Projects over time", "line", "project", 2),
    ("Total tasks", "number", "status", 1),
]

TWELVE = [
    *SIX,
    ("Bars by kind", "bar", "kind", 1),
    ("Area of status", "area", "status", 1),
    ("Assignee table", "table", "assignee", 1),
    ("Priority bars", "bar", "priority", 2),
    ("Project pie", "pie", "project", 1),
    ("Status donut", "donut", "status", 1),
]


def build(client, world: World, widgets, name: str = "Quarterly review") -> dict:
    dash = new_dashboard(client, world.acme, name=name)
    for title, chart_type, dimension, span in widgets:
        add_widget(
            client,
            world.acme,
            dash["id"],
            title=title,
            chart_type=chart_type,
            dimension=dimension,
            span=span,
        )
    return dash


def fetch_pdf(client, world: World, dash: dict, tmp_path: Path, **query) -> Path:
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/export.pdf"),
        query_string=query,
        headers=world.acme.headers,
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == "application/pdf"
    path = tmp_path / f"{uuid.uuid4().hex}.pdf"
    path.write_bytes(resp.data)
    return path


def page_count(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))


def page_size_pt(pdf: Path) -> tuple[float, float]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    w, h = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info.stdout, re.M).groups()
    return float(w), float(h)


def page_text(pdf: Path, number: int) -> str:
    return subprocess.run(
        ["pdftotext", "-f", str(number), "-l", str(number), str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def laid_out(app, world: World, dash: dict, view_filter: str | None = None):
    """The same computation and layout as the route, stopped before the PDF is
    written, so each widget's boxes can be read."""
    with app.test_request_context():
        dashboard = db.session.get(Dashboard, uuid.UUID(dash["id"]))
        org = db.session.get(Org, world.acme.org_id)
        query = DashboardQuery(org, world.acme.owner_id, dashboard.pql_filter, view_filter)
        results = query.compute(specs(dashboard))
        views = [present(r) for r in results]
        document = export.pdf_document(dashboard, views, view_filter)
        titles = {v.key: v.title for v in views}
        return document, titles


def test_six_widgets_take_two_a4_pages_with_header_and_page_numbers(client, world: World, tmp_path):
    dash = build(client, world, SIX)
    pdf = fetch_pdf(client, world, dash, tmp_path, filter="kind != task")

    assert page_count(pdf) == 2
    width, height = page_size_pt(pdf)
    assert (round(width), round(height)) == (595, 842)  # A4
    first, second = page_text(pdf, 1), page_text(pdf, 2)
    assert "Quarterly review" in first
    assert re.search(r"Computed \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC from live data", first)
    assert "Dashboard filter: none" in first
    assert "View filter: kind != task" in first
    assert "Page 1 of 2" in first and "Page 2 of 2" in second
    # Each widget's title is printed once, on one page.
    for title, *_ in SIX:
        assert (title in first) != (title in second), title


def test_no_widget_is_split_and_the_grid_keeps_two_columns_and_spans(app, client, world: World):
    dash = build(client, world, SIX)
    document, titles = laid_out(app, world, dash)

    assert len(document.pages) == 2
    pages = export.widget_pages(document)
    assert set(pages) == set(titles)
    assert all(len(p) == 1 for p in pages.values()), pages  # no widget on two pages

    boxes = {titles[b.key]: b for b in export.widget_boxes(document)}
    wide, left, right = boxes["Status overview"], boxes["Priority mix"], boxes["Kinds of work"]
    # Two span-1 widgets side by side, as wide as each other; a span-2 one across both.
    assert left.page == right.page and abs(left.y - right.y) < 1
    assert right.x > left.x + left.width
    assert abs(left.width - right.width) < 1
    assert abs(wide.x - left.x) < 1
    assert abs(wide.x + wide.width - (right.x + right.width)) < 1
    assert wide.width > 2 * left.width
    # Dense packing and order: "Total tasks" fills the cell next to "Per project"
    # rather than leaving a hole after the wide "Projects over time".
    table, total, later = boxes["Per project"], boxes["Total tasks"], boxes["Projects over time"]
    assert abs(table.y - total.y) < 1 and total.x > table.x
    assert (later.page, later.y) > (table.page, table.y)


def test_six_small_widgets_fit_two_pages(client, world: World, tmp_path):
    dash = build(client, world, [(t, c, d, 1) for t, c, d, _ in SIX])
    assert page_count(fetch_pdf(client, world, dash, tmp_path)) <= 2


def test_a_twelve_widget_dashboard_renders_every_widget_whole(app, client, world: World, tmp_path):
    dash = build(client, world, TWELVE, name="Twelve")
    pdf = fetch_pdf(client, world, dash, tmp_path)
    pages = page_count(pdf)
    assert 2 <= pages <= 4
    text = "".join(page_text(pdf, n) for n in range(1, pages + 1))
    for title, *_ in TWELVE:
        assert title in text
    assert f"Page {pages} of {pages}" in text
    # Charts are vector drawings with their labels as text.
    assert "Todo" in text and "Done" in text

    document, titles = laid_out(app, world, dash)
    placed = export.widget_pages(document)
    assert len(placed) == 12
    assert all(len(p) == 1 for p in placed.values()), {titles[k]: p for k, p in placed.items()}


def test_the_header_shows_the_computed_time_in_the_org_time_zone(
    app, client, world: World, tmp_path
):
    with app.app_context():
        db.session.get(Org, world.acme.org_id).timezone = "Asia/Tokyo"
        db.session.commit()
    dash = build(client, world, SIX[:1])
    text = page_text(fetch_pdf(client, world, dash, tmp_path), 1)
    assert re.search(r"Computed \d{1,2} \w{3} \d{4}, \d{2}:\d{2} JST \(Asia/Tokyo\)", text), text
    html = client.get(
        world.url(f"/dashboards/{dash['id']}/export.html"), headers=world.acme.headers
    ).get_data(as_text=True)
    assert re.search(r"Computed \d{1,2} \w{3} \d{4}, \d{2}:\d{2} JST \(Asia/Tokyo\)", html)


def test_the_printable_html_has_the_two_column_grid_and_print_rules(client, world: World):
    dash = build(client, world, SIX)
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/export.html"),
        query_string={"filter": "kind = bug"},
        headers=world.acme.headers,
    )
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    css = html.split("<style>", 1)[1].split("</style>", 1)[0]
    assert re.search(r"\.grid-row \{[^}]*grid-template-columns: repeat\(2, minmax\(0, 1fr\)\)", css)
    assert re.search(r"\.widget\.span-2 \{ grid-column: 1 / span 2; \}", css)
    assert re.search(r"\.grid-row \{[^}]*break-inside: avoid", css)
    assert re.search(r"\.widget \{[^}]*break-inside: avoid", css)
    assert "@media print" in css and "size: A4" in css
    assert 'content: "Page " counter(page) " of " counter(pages)' in css
    # The rows, as the PDF lays them out: titles per grid row.
    rows = [re.findall(r"<h2>([^<]+)</h2>", row) for row in html.split('<div class="grid-row')[1:]]
    assert rows == [
        ["Status overview"],
        ["Priority mix", "Kinds of work"],
        ["Per project", "Total tasks"],
        ["Projects over time"],
    ]
    assert html.count('class="widget span-2"') == 2
    assert "View filter: <code>kind = bug</code>" in html


def _view(key: str, span: int = 1, kind: str = "chart", rows: int = 3) -> WidgetView:
    return WidgetView(
        key=key,
        title=key,
        chart_type="table" if kind == "table" else "bar",
        kind=kind,
        span=span,
        dimension="assignee",
        points=[{"key": f"p{i}", "value": 1} for i in range(rows)],
    )


@pytest.mark.parametrize(
    ("spans", "rows"),
    [
        ([1, 1, 1, 1], [["a", "b"], ["c", "d"]]),
        ([1, 2, 1, 1], [["a", "c"], ["b"], ["d"]]),
        ([2, 1, 2, 1, 1], [["a"], ["b", "d"], ["c"], ["e"]]),
        ([1, 2, 2, 1], [["a", "d"], ["b"], ["c"]]),
    ],
)
def test_grid_rows_pack_densely_like_the_page(spans, rows):
    views = [_view(chr(ord("a") + i), span) for i, span in enumerate(spans)]
    assert [[v.key for v in r.views] for r in export.grid_rows(views)] == rows


def test_a_narrow_widget_left_alone_before_wide_ones_spans_its_row():
    """As on the page (dashboards.js ``pack``): no hole, but the last row may be half."""
    views = [_view("a"), _view("b", 2), _view("c", 2), _view("d"), _view("e"), _view("f")]
    rows = export.grid_rows(views)
    assert [[v.key for v in r.views] for r in rows] == [["a", "d"], ["b"], ["c"], ["e", "f"]]
    lone = export.grid_rows([_view("a"), _view("b", 2), _view("c")])
    assert [[v.key for v in r.views] for r in lone] == [["a", "c"], ["b"]]
    alone = export.grid_rows([_view("a"), _view("b", 2)])
    assert [r.fill for r in alone] == [True, False]
    assert [r.full_width for r in alone] == [True, True]
    assert export.chart_size(_view("a"), full_width=True)[0] == export.CHART_WIDTH[2]
    assert not export.grid_rows([_view("a", 2), _view("b")])[-1].full_width


def test_a_table_longer_than_a_page_gets_a_row_of_its_own():
    long = _view("long", kind="table", rows=export.LONG_TABLE_ROWS + 1)
    views = [_view("a"), long, _view("b"), _view("c", kind="table", rows=5)]
    rows = export.grid_rows(views)
    assert [[v.key for v in r.views] for r in rows] == [["a", "b"], ["long"], ["c"]]
    assert [r.long for r in rows] == [False, True, False]


def test_the_chart_renderer_stays_warm_and_draws_a_batch_in_order():
    import plotly.graph_objects as go

    figures = [
        (go.Figure(go.Bar(x=[f"label{i}"], y=[i + 1])).to_plotly_json(), 300, 200) for i in range(3)
    ]
    first = export.chart_svgs(figures)
    _, browser = pdf_charts.renderer.start()
    again = export.chart_svgs(figures)
    assert pdf_charts.renderer.start()[1] is browser  # the same Chromium, not a new one
    for i, (svg, svg_again) in enumerate(zip(first, again, strict=True)):
        assert f"label{i}" in svg_again
        assert svg.startswith("<svg") and f"label{i}" in svg
        assert 'width="300"' in svg and 'height="200"' in svg


def test_a_stopped_renderer_starts_again_on_the_next_pdf():
    """Failure injection: the renderer's browser is gone (stopped, as after a crash)."""
    import plotly.graph_objects as go

    pdf_charts.renderer.stop()
    assert not pdf_charts.renderer.running
    (svg,) = export.chart_svgs([(go.Figure(go.Bar(x=["back"], y=[1])), 300, 200)])
    assert "back" in svg and pdf_charts.renderer.running
