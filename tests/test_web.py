"""Static files are cached by fingerprint (workspace/web.py): a page names each script
and stylesheet with a hash of its content, which the browser may keep for a year, so
a page view revalidates none of them; an old or made-up fingerprint is not cached."""

from __future__ import annotations

import re

FINGERPRINTED = re.compile(r'/static/(js/app\.js)\?v=([0-9a-f]{12})"')
IMMUTABLE = "public, max-age=31536000, immutable"


def _app_js(client) -> tuple[str, str]:
    page = client.get("/signin")
    assert page.status_code == 200
    found = FINGERPRINTED.search(page.get_data(as_text=True))
    assert found, "the page names app.js without a fingerprint"
    return found.group(1), found.group(2)


def test_a_page_names_its_scripts_by_fingerprint_and_they_are_kept(client):
    name, version = _app_js(client)
    resp = client.get(f"/static/{name}?v={version}")
    assert resp.status_code == 200
    assert resp.headers["Cache-Control"] == IMMUTABLE
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_an_unknown_fingerprint_or_none_is_revalidated(client):
    name, _ = _app_js(client)
    for url in (f"/static/{name}?v=000000000000", f"/static/{name}"):
        resp = client.get(url)
        assert resp.status_code == 200
        assert "immutable" not in resp.headers.get("Cache-Control", ""), url


def test_a_missing_file_or_a_path_outside_static_is_not_cached(client):
    for url in ("/static/js/nope.js?v=abc", "/static/../workspace/web.py?v=abc"):
        resp = client.get(url)
        assert resp.status_code == 404, url
        assert "immutable" not in resp.headers.get("Cache-Control", "")


def test_a_changed_file_gets_a_new_fingerprint(app, tmp_path):
    from workspace.web import static_fingerprint

    with app.app_context():
        folder = app.static_folder
        (tmp_path / "static").mkdir()
        (tmp_path / "outside.js").write_text("not served")
        app.static_folder = str(tmp_path / "static")
        try:
            asset = tmp_path / "static" / "x.js"
            asset.write_text("one")
            first = static_fingerprint("x.js")
            asset.write_text("two, longer")
            assert static_fingerprint("x.js") not in (None, first)
            assert static_fingerprint("../outside.js") is None
        finally:
            app.static_folder = folder
