"""The printable dashboard: one self-contained HTML page, and a PDF of the same.

HTML (docs/dashboards.md): the vendored plotly-basic bundle and the pages' chart drawer
(``static/js/analytics.js``) are inlined so the page makes no outside request; charts
are drawn in the browser from the same figures, by the same script, as the page.
PDF: WeasyPrint runs no JavaScript, so each chart is rendered server-side to SVG by
Plotly through kaleido 1.x, which drives a Chromium (Debian's /usr/bin/chromium or
``BROWSER_PATH``). Without a Chromium the PDF is unavailable and says so.

Neither renderer fetches anything (docs/security.md#rendering-isolation): chart text
is plain text (``charts.plain``); kaleido's page carries a Content-Security-Policy
that lets it load only its own two local scripts, with MathJax (a CDN script) off;
WeasyPrint's fetcher refuses every URL but an inline ``data:`` one.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import re
import shutil
import threading
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

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


def _slug(text: str) -> str:
    return re.sub(r"-{2,}", "-", "".join(c if c.isalnum() else "-" for c in text.lower())).strip(
        "-"
    )


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
            kaleido.start_sync_server(page_generator=_isolated_page(), silence_warnings=True)
            atexit.register(kaleido.stop_sync_server, silence_warnings=True)
    return kaleido


#: The policy of the page kaleido draws in. Its scripts are local files (plotly.js from
#: the plotly package, kaleido's own); everything else the page could start (a CSS
#: ``url()`` in a label's style, an image, a font, a fetch) is refused by the browser.
KALEIDO_CSP = (
    "default-src 'none'; script-src file:; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)


def _isolated_page():
    """kaleido's page generator with the policy above and MathJax off (kaleido's
    default loads it from a CDN when the browser starts)."""
    from kaleido import PageGenerator

    class IsolatedPage(PageGenerator):
        header = PageGenerator.header.replace(
            "<head>",
            f'<head>\n        <meta http-equiv="Content-Security-Policy" content="{KALEIDO_CSP}">',
            1,
        )

    if KALEIDO_CSP not in IsolatedPage.header:  # fail closed: no policy, no drawing
        raise RuntimeError("kaleido's page header changed shape; the policy is missing")
    return IsolatedPage(mathjax=False)


def chart_svg(view: WidgetView, width: int) -> str:
    return figure_svg(view.figure, width)


def figure_svg(figure, width: int) -> str:
    data = _kaleido().calc_fig_sync(figure, opts={"format": "svg", "width": width, "height": 300})
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
    return HTML(string=html, url_fetcher=inline_only_fetcher()).write_pdf()


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
