"""The printable dashboard: one self-contained HTML page, and a PDF of the same.

HTML (docs/dashboards.md): the vendored plotly-basic bundle and the pages' chart drawer
(``static/js/analytics.js``) are inlined so the page makes no outside request; charts
are drawn in the browser from the same figures, by the same script, as the page.
PDF: WeasyPrint runs no JavaScript, so each chart is rendered server-side to SVG by
Plotly through kaleido 1.x, which drives a Chromium (Debian's /usr/bin/chromium or
``BROWSER_PATH``). Without a Chromium the PDF is unavailable and says so.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path

from flask import current_app, render_template
from markupsafe import Markup

from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.present import WidgetView
from workspace.errors import ServiceError

log = logging.getLogger(__name__)


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
        views=views,
        view_filter=view_filter,
        plotly_js=Markup(plotly_bundle()),
        charts_js=Markup(charts_script()),
        pdf=False,
        printed_at=datetime.now(UTC),
    )


def chromium_path() -> str | None:
    """The browser kaleido will drive, or None when the server has none."""
    configured = os.environ.get("BROWSER_PATH")
    if configured:
        return configured if os.path.exists(configured) else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def pdf_available() -> bool:
    return chromium_path() is not None


_server_lock = threading.Lock()


def _kaleido():
    """kaleido with its browser kept warm: a cold call starts Chromium (~4 s), a warm
    one takes ~0.4 s (docs/dashboards.md#printing-and-pdf)."""
    import kaleido

    with _server_lock:
        if not kaleido._global_server.is_running():  # kaleido has no public "is running" probe
            path = chromium_path()
            if path:
                os.environ.setdefault("BROWSER_PATH", path)
            kaleido.start_sync_server(silence_warnings=True)
            atexit.register(kaleido.stop_sync_server, silence_warnings=True)
    return kaleido


def chart_svg(view: WidgetView, width: int) -> str:
    data = _kaleido().calc_fig_sync(
        view.figure, opts={"format": "svg", "width": width, "height": 300}
    )
    svg = data.decode("utf-8") if isinstance(data, bytes) else data
    return svg


def render_pdf(dashboard: Dashboard, views: list[WidgetView], view_filter: str | None) -> bytes:
    if not pdf_available():
        raise PdfUnavailable(
            "PDF export is unavailable on this server: it needs Chromium to draw the "
            "charts (install the chromium package or set BROWSER_PATH). The printable "
            "HTML export still works."
        )
    from weasyprint import HTML

    svgs = {}
    try:
        for view in views:
            if view.figure is not None:
                svgs[view.key] = Markup(chart_svg(view, 680))
    except Exception as exc:  # kaleido or its browser failed: a server state, not input
        log.exception("drawing a chart for the PDF failed")
        raise PdfUnavailable(
            "PDF export failed on this server: the charts could not be drawn "
            f"({type(exc).__name__}). The printable HTML export still works."
        ) from exc
    html = render_template(
        "dashboards/export.html",
        dashboard=dashboard,
        views=views,
        view_filter=view_filter,
        plotly_js=None,
        svgs=svgs,
        pdf=True,
        printed_at=datetime.now(UTC),
    )
    return HTML(string=html, base_url=current_app.static_folder).write_pdf()
