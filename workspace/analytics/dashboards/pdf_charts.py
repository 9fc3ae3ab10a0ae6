"""A PDF's charts drawn to SVG by Plotly through kaleido 1.x, which drives a Chromium
(Debian's /usr/bin/chromium or ``BROWSER_PATH``) kept running between requests and
given all of a PDF's charts in one call (:class:`ChartRenderer`); without a Chromium
the PDF is unavailable and says so (docs/dashboards.md#printing-and-pdf).

The page it draws in fetches nothing (docs/security.md#rendering-isolation): it
carries a Content-Security-Policy that lets it load only kaleido's own two local
scripts, with MathJax (a CDN script) off.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import shutil
import threading
from typing import Any

log = logging.getLogger(__name__)


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


#: Seconds a PDF waits for its charts before answering 503.
CHART_TIMEOUT = 60


#: Draws a batch of figures in one call, one after the other, in kaleido's page (its
#: ``kaleido_scopes.plotly``, the function ``calc_fig`` calls). Sequential: Plotly
#: keeps some global state while it draws.
_BATCH_JS = (
    "async function(specs) {"
    "  const out = [];"
    "  for (const spec of specs) { out.push(await kaleido_scopes.plotly(spec)); }"
    "  return JSON.stringify(out);"
    "}"
)


class ChartError(RuntimeError):
    """Plotly could not draw a figure (the renderer itself is fine)."""


class ChartRenderer:
    """One Chromium kept open between requests, drawing a PDF's charts in one call.

    ``kaleido.calc_fig`` reloads its page after every figure (re-parsing the 3.5 MB
    plotly.js, ~140 ms on the 2-core machine, against ~30 ms for the drawing itself).
    Here a request's figures are drawn in one page load, and the page is reloaded
    once afterwards, in the background, so no figure of one request sees another's
    page state. Uses two of kaleido 1.5's internals (``_get_kaleido_tab``,
    ``_return_kaleido_tab``); without them it falls back to one ``calc_fig`` per chart.
    """

    tabs = 2  # two PDFs can be drawn at once; a third waits for a tab

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido = None
        self._pending: set[asyncio.Task] = set()
        self._exit_hook = False

    @property
    def running(self) -> bool:
        return self._kaleido is not None

    def start(self) -> tuple[asyncio.AbstractEventLoop, Any]:
        """Chromium's event loop and kaleido, started (the cold ~3 s) if need be."""
        with self._lock:
            if self._kaleido is not None and self._loop is not None:
                return self._loop, self._kaleido
            import kaleido

            path = chromium_path()
            if path:
                os.environ.setdefault("BROWSER_PATH", path)
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="pdf-chart-renderer", daemon=True
            )
            thread.start()

            async def open_():
                k = kaleido.Kaleido(n=self.tabs, page_generator=_isolated_page())
                await k.open()
                return k

            try:
                k = asyncio.run_coroutine_threadsafe(open_(), loop).result(60)
            except BaseException:
                loop.call_soon_threadsafe(loop.stop)
                raise
            if not self._exit_hook:
                atexit.register(self.stop)
                self._exit_hook = True
            self._loop, self._kaleido = loop, k
            return loop, k

    def stop(self) -> None:
        """Close Chromium (tests, process exit, or after it failed)."""
        with self._lock:
            k, loop = self._kaleido, self._loop
            self._kaleido = self._loop = None
        if k is None or loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(k.close(), loop).result(10)
        except Exception:  # already dead: nothing left to close
            log.warning("closing the PDF chart renderer failed", exc_info=True)
        finally:
            loop.call_soon_threadsafe(loop.stop)

    def draw(self, figures: list[tuple[Any, int, int]]) -> list[str]:
        """SVG text of each (figure, width, height), in order."""
        if not figures:
            return []
        loop, k = self.start()
        try:
            return asyncio.run_coroutine_threadsafe(self._draw(k, figures), loop).result(
                CHART_TIMEOUT
            )
        except ChartError:
            raise  # Plotly refused a figure: the browser is fine
        except Exception:
            # A dead or stuck browser: start a fresh one on the next request.
            self.stop()
            raise

    async def _draw(self, k, figures: list[tuple[Any, int, int]]) -> list[str]:
        from kaleido._kaleido_tab import _devtools_utils as dtools
        from kaleido._utils.fig_tools import coerce_for_js

        specs = [
            coerce_for_js(fig, None, {"format": "svg", "width": w, "height": h})
            for fig, w, h in figures
        ]
        if not hasattr(k, "_get_kaleido_tab") or not hasattr(k, "_return_kaleido_tab"):
            return [(await k.calc_fig(s["data"], opts=_opts(s))).decode() for s in specs]
        tab = await k._get_kaleido_tab()
        try:
            response = await dtools.exec_js_fn(tab.tab, tab._current_js_id, _BATCH_JS, specs)
        finally:
            # Reload the page for the next request without making this one wait.
            task = asyncio.create_task(k._return_kaleido_tab(tab))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
        dtools._raise_error(response)
        results = json.loads(response["result"]["result"]["value"])
        out = []
        for item in results:
            if item.get("code") != 0:
                raise ChartError(f"kaleido could not draw a chart: {item.get('message')}")
            out.append(item["result"])
        return out


def _opts(spec: dict[str, Any]) -> dict[str, Any]:
    return {"format": "svg", "width": spec["width"], "height": spec["height"]}


renderer = ChartRenderer()
