"""The PDF export (WeasyPrint, charts as SVG from kaleido + Chromium) and what a
server without Chromium says."""

from __future__ import annotations

import subprocess

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.conftest import login

KINDS = ["bar", "line", "area", "donut", "pie", "number", "table"]


def test_pdf_opens_and_names_every_widget(client, world: World, tmp_path):
    dash = new_dashboard(client, world.acme, name="Quarterly review")
    for kind in KINDS:
        add_widget(client, world.acme, dash["id"], title=f"Widget {kind}", chart_type=kind)
    resp = client.get(world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == "application/pdf"
    assert 'filename="quarterly-review.pdf"' in resp.headers["Content-Disposition"]
    pdf = tmp_path / "d.pdf"
    pdf.write_bytes(resp.data)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = int(next(x for x in info.stdout.splitlines() if x.startswith("Pages:")).split()[1])
    assert pages >= 2  # seven widgets do not fit one A4 page
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(tmp_path / "p")], check=True)
    assert len(list(tmp_path.glob("p-*.png"))) == pages
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    for kind in KINDS:
        assert f"Widget {kind}" in text
    assert "Quarterly review" in text
    # The charts are vector drawings with their axis labels as text, not blank boxes.
    assert "Todo" in text and "Done" in text


def test_pdf_honours_the_view_filter(client, world: World, tmp_path):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="Count", chart_type="number")
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/export.pdf"),
        query_string={"filter": "kind = feature"},
        headers=world.acme.headers,
    )
    pdf = tmp_path / "f.pdf"
    pdf.write_bytes(resp.data)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "kind = feature" in text
    assert "\n1\n" in text and "\n6\n" not in text


def test_without_chromium_pdf_is_unavailable_and_the_page_says_so(
    client, world: World, monkeypatch
):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    dash = new_dashboard(client, world.acme)
    resp = client.get(world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers)
    assert resp.status_code == 503
    assert "Chromium" in resp.get_json()["detail"]
    login(client, world.acme.owner_email)
    page = client.get(f"/o/{world.acme.slug}/dashboards/{dash['id']}").get_data(as_text=True)
    assert "PDF export is unavailable on this server" in page
    assert "Download PDF" not in page


def test_a_chart_renderer_failure_is_a_503_not_a_500(client, world: World, monkeypatch):
    """Failure injection: Chromium is there but kaleido fails mid-export."""
    from workspace.analytics.dashboards import export

    def crash(figures):
        raise RuntimeError("browser went away")

    monkeypatch.setattr(export, "chart_svgs", crash)
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="Bars", chart_type="bar")
    resp = client.get(world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers)
    assert resp.status_code == 503
    detail = resp.get_json()["detail"]
    assert "could not be drawn" in detail and "printable HTML" in detail
    assert "browser went away" not in detail


NAMES = {
    "ダッシュボード": "%E3%83%80%E3%83%83%E3%82%B7%E3%83%A5%E3%83%9C%E3%83%BC%E3%83%89.pdf",
    "Панель": "%D0%BF%D0%B0%D0%BD%D0%B5%D0%BB%D1%8C.pdf",
    "Πίνακας": "%CF%80%CE%AF%CE%BD%CE%B1%CE%BA%CE%B1%CF%82.pdf",
    'Q3 "final"\r\nX-Injected: 1': "q3-final-x-injected-1.pdf",
}


def _disposition_ok(header: str, encoded: str) -> None:
    """RFC 6266: an ASCII ``filename`` fallback and the name in ``filename*`` (RFC 5987)."""
    assert header.startswith("attachment; filename=")
    assert header.isascii() and "\r" not in header and "\n" not in header
    fallback = header.split('filename="', 1)[1].split('"', 1)[0]
    assert fallback.endswith(".pdf") and fallback.replace("-", "").replace(".", "").isalnum()
    assert header.endswith(f"filename*=UTF-8''{encoded}")


def test_pdf_download_name_works_in_any_script(client, world: World):
    dash = new_dashboard(client, world.acme)
    for name, encoded in NAMES.items():
        renamed = client.patch(
            world.url(f"/dashboards/{dash['id']}"), json={"name": name}, headers=world.acme.headers
        )
        assert renamed.status_code == 200, renamed.get_json()
        resp = client.get(
            world.url(f"/dashboards/{dash['id']}/export.pdf"), headers=world.acme.headers
        )
        assert resp.status_code == 200, (name, resp.get_data(as_text=True)[:200])
        assert resp.headers.get("X-Injected") is None
        _disposition_ok(resp.headers["Content-Disposition"], encoded)


def test_pdf_with_a_japanese_name_answers_on_a_real_server(live_server, client, world: World):
    """The werkzeug server used to hang on a header it could not encode."""
    import requests

    dash = new_dashboard(client, world.acme, name="ダッシュボード")
    resp = requests.get(
        live_server.url + world.url(f"/dashboards/{dash['id']}/export.pdf"),
        headers=world.acme.headers,
        timeout=10,
    )
    assert resp.status_code == 200
    assert resp.content.startswith(b"%PDF")
    assert resp.headers["Content-Disposition"] == (
        "attachment; filename=\"dashboard.pdf\"; filename*=UTF-8''" + NAMES["ダッシュボード"]
    )
