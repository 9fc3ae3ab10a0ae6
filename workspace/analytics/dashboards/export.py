"""The printable dashboard: one self-contained HTML page, and a PDF of the same.

Both lay the widgets out as the dashboard page's grid does (two columns, spans kept,
dense packing: :func:`grid_rows`), one block per row that never breaks across pages,
under a header with the name, the filters and the time computed (org time zone), with
"Page n of m" in the footer (docs/dashboards.md#print-and-pdf).
HTML: the vendored plotly-basic bundle and the pages' chart drawer
(``static/js/analytics.js``) are inlined so the page makes no outside request; charts
are drawn in the browser from the same figures, by the same script, as the page.
PDF: WeasyPrint runs no JavaScript, so the charts are drawn to SVG first, all of a
PDF's in one call to the Chromium :mod:`workspace.analytics.dashboards.pdf_charts`
keeps running. Without a Chromium the PDF is unavailable and says so.

Neither renderer fetches anything (docs/security.md#rendering-isolation): chart text
is plain text (``charts.plain``); kaleido's page carries a Content-Security-Policy
that lets it load only its own two local scripts, with MathJax (a CDN script) off;
WeasyPrint's fetcher refuses every URL but an inline ``data:`` one.
"""

from __future__ import annotations

import base64
import functools
import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import current_app, render_template
from markupsafe import Markup

from workspace.analytics.dashboards import pdf_charts
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.present import WidgetView
from workspace.core.models import Org
from workspace.errors import ServiceError
from workspace.extensions import db

log = logging.getLogger(__name__)

#: ``progress(done, total, text)``, as a job reports it (workspace/jobs/registry.py).
Progress = Callable[[int, int, str], None]


class PdfUnavailable(ServiceError):
    status = 503


@functools.cache
def _inline_script(relative: str) -> str:
    path = Path(current_app.static_folder or "static") / relative
    # Inside <script>, only "</script" could end the element early.
    return path.read_text(encoding="utf-8").replace("</script", "<\\/script")


def plotly_bundle() -> str:
    return _inline_script("vendor/plotly-basic.min.js")


def charts_script() -> str:
    """The pages' own chart drawer, so the export draws exactly as they do."""
    return _inline_script("js/analytics.js")


def render_html(dashboard: Dashboard, views: list[WidgetView], view_filter: str | None) -> str:
    return render_template(
        "dashboards/export.html",
        dashboard=dashboard,
        rows=grid_rows(views),
        view_filter=view_filter,
        plotly_js=Markup(plotly_bundle()),
        charts_js=Markup(charts_script()),
        pdf=False,
        computed_at=computed_at(dashboard),
    )


def _slug(text: str) -> str:
    return re.sub(r"-{2,}", "-", "".join(c if c.isalnum() else "-" for c in text.lower())).strip(
        "-"
    )


def attachment_filename(name: str, extension: str) -> str:
    """The ASCII file name of a download named after user text."""
    return attachment_disposition(name, extension).split('"')[1]


def attachment_disposition(name: str, extension: str) -> str:
    """``Content-Disposition`` for a download named after user text (RFC 6266): the
    name as a slug in ``filename*=UTF-8''…`` (RFC 5987, percent-encoded, so any script
    works), and an ASCII ``filename="…"`` for clients that read only that. Only
    letters, digits and dashes survive, so no quote, CR or LF reaches the header."""
    unicode_name = _slug(unicodedata.normalize("NFC", name)) or "dashboard"
    ascii_name = (
        _slug(unicodedata.normalize("NFKD", unicode_name).encode("ascii", "ignore").decode())
        or "dashboard"
    )
    return (
        f'attachment; filename="{ascii_name}.{extension}"; '
        f"filename*=UTF-8''{quote(f'{unicode_name}.{extension}', safe='')}"
    )


#: Chart size in the PDF, CSS px (1/96 in): a widget's inner width on A4 with 12 mm
#: margins, two columns 5 mm apart, 4 mm padding; drawn at the size it is shown, so
#: Plotly's 12 px text prints at 9 pt.
CHART_WIDTH = {1: 310, 2: 672}
CHART_HEIGHT = 225
#: A table with more rows than this cannot fit a page: it gets a row of its own, laid
#: out as a block so it continues on the next page (header repeated) instead of being
#: cut (docs/dashboards.md#print-and-pdf).
LONG_TABLE_ROWS = 28


@dataclass
class GridRow:
    """One row of the printed grid: one span-2 widget or up to two span-1 widgets."""

    views: list[WidgetView] = field(default_factory=list)
    long: bool = False
    #: A narrow widget alone in a row that is not the last one (only wide widgets
    #: follow it) is drawn across the row, as the page does (``.fill-row``).
    fill: bool = False

    @property
    def free(self) -> int:
        return 2 - sum(v.span for v in self.views)

    @property
    def full_width(self) -> bool:
        """One widget across both columns."""
        return self.long or self.fill or any(v.span == 2 for v in self.views)


def is_long(view: WidgetView) -> bool:
    return view.kind == "table" and len(view.points) > LONG_TABLE_ROWS


def grid_rows(views: list[WidgetView]) -> list[GridRow]:
    """The widgets placed as the dashboard page's grid places them (two columns,
    ``grid-auto-flow: dense``, and static/js/dashboards.js ``pack``): a span-2 widget
    starts a row of its own, a span-1 widget fills the first row with a free cell, so
    no hole is left and the order holds otherwise; a span-1 widget left alone before
    wide ones is drawn across its row. Computed here because WeasyPrint cannot
    fragment one CSS grid across pages reliably: each row is its own block that never
    breaks."""
    rows: list[GridRow] = []
    for view in views:
        span = 2 if view.span == 2 or is_long(view) else 1
        target = None
        if span == 1:
            target = next((r for r in rows if not r.long and r.free == 1), None)
        if target is None:
            target = GridRow(long=is_long(view))
            rows.append(target)
        target.views.append(view)
    for row in rows[:-1]:
        row.fill = row.free == 1
    return rows


def chart_size(view: WidgetView, full_width: bool | None = None) -> tuple[int, int]:
    """PDF size of a chart: its column's width (both columns when ``full_width``, by
    default when the widget spans two); the height the figure asks for on the page
    (taller for many horizontal bars) scaled by 3/4 like the default 300 px, and at
    most 700 px (two thirds of the A4 page)."""
    wide = view.span == 2 if full_width is None else full_width
    width = CHART_WIDTH[2 if wide else 1]
    asked = None
    if view.figure is not None:
        asked = view.figure.layout.get("height")
    height = CHART_HEIGHT if not asked else max(CHART_HEIGHT, min(int(asked * 0.75), 700))
    return width, height


def chart_svgs(figures: list[tuple[Any, int, int]]) -> list[str]:
    """Every chart of a PDF, drawn in one batch by the warm renderer."""
    return pdf_charts.renderer.draw(figures)


def figure_svg(figure, width: int, height: int = CHART_HEIGHT) -> str:
    return chart_svgs([(figure, width, height)])[0]


def computed_at(dashboard: Dashboard) -> datetime:
    """Now in the org's time zone: the figures were computed just before rendering."""
    org = db.session.get(Org, dashboard.org_id)
    return datetime.now(UTC).astimezone(org.zone if org else UTC)


def svg_image(svg: str, title: str) -> Markup:
    """A chart as an ``<img>`` of a ``data:`` SVG rather than inline SVG: WeasyPrint
    then parses it once as an image instead of running the page's CSS cascade over
    its ~100 elements (a third of the render time for twelve widgets). (Drawing the
    charts while WeasyPrint parses the page, through a fetcher waiting on the batch,
    measured no faster on the loaded 2-core machine, so it is not done.)"""
    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return Markup('<img src="data:image/svg+xml;base64,{}" alt="{}">').format(
        Markup(encoded), title
    )


def require_pdf() -> None:
    """Refuse (503) when this server cannot draw charts for a PDF."""
    if not pdf_charts.pdf_available():
        raise PdfUnavailable(
            "PDF export is unavailable on this server: it needs Chromium to draw the "
            "charts (install the chromium package or set BROWSER_PATH). The printable "
            "HTML export still works."
        )


def pdf_document(
    dashboard: Dashboard,
    views: list[WidgetView],
    view_filter: str | None,
    progress: Progress | None = None,
):
    """The laid-out WeasyPrint document (pages and boxes), before it is written;
    ``progress(done, total, text)`` hears how the charts and the layout go."""
    require_pdf()
    from weasyprint import HTML

    rows = grid_rows(views)
    charted = [(v, row.full_width) for row in rows for v in row.views if v.figure is not None]
    try:
        drawn = _draw_charts([(v.figure, *chart_size(v, wide)) for v, wide in charted], progress)
    except Exception as exc:  # kaleido or its browser failed: a server state, not input
        log.exception("drawing the charts for the PDF failed")
        raise PdfUnavailable(
            "PDF export failed on this server: the charts could not be drawn "
            f"({type(exc).__name__}). The printable HTML export still works."
        ) from exc
    html = render_template(
        "dashboards/export.html",
        dashboard=dashboard,
        rows=rows,
        view_filter=view_filter,
        plotly_js=None,
        svgs={v.key: svg_image(svg, v.title) for (v, _), svg in zip(charted, drawn, strict=True)},
        pdf=True,
        computed_at=computed_at(dashboard),
    )
    if progress is not None:
        progress(len(charted), len(charted), "Laying out the pages")
    return HTML(string=html, url_fetcher=inline_only_fetcher()).render()


#: Charts drawn per call when someone watches the progress: small enough that
#: "Drawing charts 4 of 12" moves, large enough to keep most of one batch's speed.
PROGRESS_BATCH = 4


def _draw_charts(figures: list[tuple[Any, int, int]], progress: Progress | None) -> list[str]:
    if progress is None:
        return chart_svgs(figures)
    drawn: list[str] = []
    for start in range(0, len(figures), PROGRESS_BATCH):
        progress(start, len(figures), f"Drawing charts {start + 1} of {len(figures)}")
        drawn += chart_svgs(figures[start : start + PROGRESS_BATCH])
    return drawn


def render_pdf(
    dashboard: Dashboard,
    views: list[WidgetView],
    view_filter: str | None,
    progress: Progress | None = None,
) -> bytes:
    return pdf_document(dashboard, views, view_filter, progress).write_pdf()


@dataclass
class WidgetBox:
    """Where WeasyPrint laid out (a fragment of) a widget: page 1-based, CSS px."""

    key: str
    page: int
    x: float
    y: float
    width: float
    height: float


def widget_boxes(document) -> list[WidgetBox]:
    """Every widget box of a laid-out document (``data-widget`` sections), page by
    page: a widget kept whole has exactly one."""
    boxes: list[WidgetBox] = []

    def walk(box, number: int) -> None:
        element = getattr(box, "element", None)
        key = element.get("data-widget") if element is not None else None
        if key and getattr(box, "element_tag", None) == "section":
            boxes.append(
                WidgetBox(
                    key,
                    number,
                    box.border_box_x(),
                    box.border_box_y(),
                    box.border_width(),
                    box.border_height(),
                )
            )
        for child in getattr(box, "children", ()):
            walk(child, number)

    for number, page in enumerate(document.pages, start=1):
        walk(page._page_box, number)  # WeasyPrint's Page keeps its box tree there
    return boxes


def widget_pages(document) -> dict[str, list[int]]:
    """Page numbers on which each widget has a box: one page when it is not split."""
    pages: dict[str, list[int]] = {}
    for box in widget_boxes(document):
        seen = pages.setdefault(box.key, [])
        if box.page not in seen:
            seen.append(box.page)
    return pages


def inline_only_fetcher():
    """WeasyPrint's fetcher, refusing every URL but ``data:``: the page is one inline
    document, so a URL in it can only come from user text and is never fetched."""
    from weasyprint import URLFetcher

    class InlineOnly(URLFetcher):
        def fetch(self, url, headers=None):
            if not url.lower().startswith("data:"):
                log.warning("PDF export refused to fetch %.200s", url)
                raise ValueError("the PDF export fetches nothing")
            return super().fetch(url, headers)

    return InlineOnly(allowed_protocols=("data",), allow_redirects=False)
