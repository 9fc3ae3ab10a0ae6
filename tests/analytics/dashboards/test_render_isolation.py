"""The PDF export fetches nothing (docs/security.md#rendering-isolation): user text in
a chart is plain text, kaleido's Chromium page refuses every request it did not bring,
and WeasyPrint fetches no URL but an inline ``data:`` one. A local HTTP server counts
what reaches it; the answer must be nothing."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import plotly.graph_objects as go
import pytest

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from workspace.analytics import charts
from workspace.analytics.dashboards import export
from workspace.core.projects import create_project
from workspace.core.tasks import create_task
from workspace.extensions import db

PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5b2b3a90000000049454e44ae426082"
)


class Sink:
    """An HTTP server on loopback that answers everything and remembers each path."""

    def __init__(self) -> None:
        hits: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PIXEL)))
                self.end_headers()
                self.wfile.write(PIXEL)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.hits = hits
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def url(self, path: str) -> str:
        return f"{self.base}/{path}"


@pytest.fixture
def sink() -> Iterator[Sink]:
    s = Sink()
    thread = threading.Thread(target=s.server.serve_forever, daemon=True)
    thread.start()
    yield s
    s.server.shutdown()
    s.server.server_close()


def hostile(sink: Sink) -> list[str]:
    """Names that were markup to Plotly: a link closing its text element, and styles
    whose url() the drawing browser used to fetch."""
    return [
        f'x</text><a href="{sink.url("link")}">',
        f'<span style="fill:url({sink.url("fill")})">f</span>',
        f'<span style="background-image:url({sink.url("bg")})">b</span>',
        f'<span style="mask:url({sink.url("mask")}#m)">m</span>',
    ]


def test_hostile_project_names_make_the_pdf_export_fetch_nothing(
    app, client, world: World, sink: Sink, tmp_path
):
    names = [*hostile(sink), "<b>B</b>&lt;"]
    with app.app_context():
        for i, name in enumerate(names):
            project = create_project(world.acme.org_id, world.acme.owner_id, name, f"EV{i}")
            db.session.flush()
            create_task(project, world.acme.owner_id, title=f"t{i}")
        db.session.commit()
    dash = new_dashboard(client, world.acme, name=f"<b>{names[1]}</b>")
    for kind in ("bar", "donut", "line"):
        add_widget(
            client, world.acme, dash["id"], title=names[2], chart_type=kind, dimension="project"
        )

    resp = client.get(world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers)

    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    assert sink.hits == []
    pdf = tmp_path / "d.pdf"
    pdf.write_bytes(resp.data)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    # The charts (no table here) draw the names as written, not as markup (axis
    # labels are cut to 15 characters).
    assert "x</text><a href" in text
    assert "<span style" in text
    assert "<b>B</b>&lt;" in text


def test_the_chart_renderer_refuses_requests_even_for_raw_markup(sink: Sink):
    """kaleido's own page: a figure that was not escaped still fetches nothing."""
    labels = [*hostile(sink), f'<span style="cursor:url({sink.url("cursor")}),auto">c</span>']
    figure = go.Figure(go.Bar(x=labels, y=list(range(1, len(labels) + 1))))
    figure.update_layout(title_text=f'<span style="filter:url({sink.url("title")}#f)">T</span>')

    svg = export.figure_svg(figure.to_plotly_json(), 600)

    assert "<svg" in svg
    assert sink.hits == []


def test_the_pdf_writer_fetches_no_url(app, client, world: World, sink: Sink, monkeypatch):
    """WeasyPrint: an image or a style URL inside a chart's SVG stays unfetched."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">'
        f'<image href="{sink.url("image")}" width="10" height="10"/>'
        f'<rect width="10" height="10" style="fill:url({sink.url("paint")}#p)"/>'
        '<image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/></svg>'
    )
    monkeypatch.setattr(export, "chart_svgs", lambda figures: [svg] * len(figures))
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="Bars", chart_type="bar")

    resp = client.get(world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers)

    assert resp.status_code == 200
    assert sink.hits == []


def test_user_text_in_a_figure_is_plain_text():
    raw = ['<b>bold</b> & <a href="http://x/">a</a>', "R&amp;D is a long name for a bar"]
    figure = charts.points_figure([{"key": k, "value": 1} for k in raw]).to_plotly_json()
    # Long labels turn the bars horizontal: the labels are on the y axis.
    assert figure["data"][0]["orientation"] == "h"
    labels = list(figure["data"][0]["y"])
    assert labels == [
        '&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href="http://x/"&gt;a&lt;/a&gt;',
        "R&amp;amp;D is a long name for a bar",
    ]
    # Cut before escaping: no entity is cut in half.
    assert list(figure["layout"]["yaxis"]["ticktext"]) == [
        '&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href="http…',
        "R&amp;amp;D is a long name for…",
    ]
    rows = [
        {
            "name": "<i>Eve</i>",
            "email": "e@x",
            "kind": "human",
            "in_progress": 1,
            "open": 1,
            "completed_30d": 0,
        }
    ]
    assert list(charts.workload_figure(rows).to_plotly_json()["data"][0]["y"]) == [
        "&lt;i&gt;Eve&lt;/i&gt;"
    ]


def test_figure_json_cannot_leave_its_script_element():
    """``<!--<script>`` in a name would put the parser in a state where the element's
    own ``</script>`` no longer ends it, and the rest of the page became chart data."""
    figure = charts.points_figure([{"key": "<!--<script></script>&", "value": 1}])
    embedded = charts.to_json(figure)
    assert not set("<>&") & set(embedded)
    assert json.loads(embedded)["data"][0]["y"] == ["&lt;!--&lt;script&gt;&lt;/script&gt;&amp;"]
