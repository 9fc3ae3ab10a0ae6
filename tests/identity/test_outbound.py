"""The outbound HTTP guard (docs/security.md), against real sockets on loopback."""

from __future__ import annotations

import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workspace.security import outbound
from workspace.security.outbound import OutboundError, OutboundTimeout, check_url, fetch


class _Redirector(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/to-metadata"):
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()
        elif self.path.startswith("/loop"):
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
        elif self.path.startswith("/slow-hop"):
            time.sleep(0.6)  # each hop well inside the per-read timeout
            self.send_response(302)
            self.send_header("Location", "/slow-hop")
            self.end_headers()
        elif self.path.startswith("/to-ok"):
            self.send_response(301)
            self.send_header("Location", "/ok")
            self.end_headers()
        elif self.path.startswith("/big"):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"x" * (1024 * 1024 + 10))
        else:
            body = b'{"ok": true}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


@pytest.fixture(scope="module")
def peer():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
    ],
)
def test_private_targets_refused_by_default(app, url):
    with app.app_context(), pytest.raises(OutboundError, match="private"):
        check_url(url)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "gopher://x.example/", "ftp://a.b/", "http:///nohost"]
)
def test_only_http_with_a_host(app, url):
    with app.app_context(), pytest.raises(OutboundError):
        check_url(url)


def test_allow_list_lets_named_hosts_through(app, monkeypatch, peer):
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    with app.app_context():
        assert fetch("GET", peer + "/ok").json() == {"ok": True}
        with pytest.raises(OutboundError, match="private"):
            check_url("http://localhost/")


def test_redirects_are_checked_at_every_hop(app, monkeypatch, peer):
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    with app.app_context():
        assert fetch("GET", peer + "/to-ok").json() == {"ok": True}
        with pytest.raises(OutboundError, match="private"):
            fetch("GET", peer + "/to-metadata")
        with pytest.raises(OutboundError, match="Too many redirects"):
            fetch("GET", peer + "/loop")


def test_body_is_capped(app, monkeypatch, peer):
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    with app.app_context(), pytest.raises(OutboundError, match="1 MiB"):
        fetch("GET", peer + "/big")


def test_doh_through_the_guard_without_allow_list(client, acme, doh, app, monkeypatch):
    """The DoH server is on loopback: with the allow-list emptied the guard refuses it,
    and the admin reads why instead of a 500."""
    row = client.post(
        acme.url("/domains"), json={"domain": "acme.example"}, headers=acme.headers
    ).get_json()
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", [])
    resp = client.post(acme.url(f"/domains/{row['id']}/verify"), headers=acme.headers)
    assert resp.status_code == 502
    assert "private" in resp.get_json()["detail"]
    assert doh.queries == []


def test_dns_rebinding_is_refused_on_the_socket(app, monkeypatch, peer):
    """The pre-check's resolver says the name is public, the connection's resolver
    lands on loopback (what a rebinding DNS server does between two lookups): the
    guard looks at the address actually connected to and refuses before sending."""
    seen = []

    class _Handler(_Redirector):
        def do_GET(self):
            seen.append(self.path)
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 80))]
    monkeypatch.setattr(outbound, "_resolve", lambda *a, **k: public)
    try:
        with app.app_context(), pytest.raises(OutboundError, match="private"):
            fetch("GET", f"http://localhost:{server.server_port}/secret")
        assert seen == []
    finally:
        server.shutdown()


def test_redirect_hops_share_one_deadline(app, monkeypatch, peer):
    """Four hops of 0.6 s each would take 2.4 s; the deadline is for the whole fetch."""
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 2.0)
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", 1.0)
    started = time.monotonic()
    with app.app_context(), pytest.raises(OutboundTimeout, match="within 1 seconds"):
        fetch("GET", peer + "/slow-hop")
    assert time.monotonic() - started < 1.8


def test_the_deadline_leaves_no_descriptor_open(app, monkeypatch, peer):
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    with app.app_context():
        fetch("GET", peer + "/ok")
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(20):
            assert fetch("GET", peer + "/to-ok").json() == {"ok": True}
        # A leak grows with every call (20 here); other threads of the test process may
        # open or close a descriptor or two meanwhile, so exact equality would flake.
        assert len(os.listdir("/proc/self/fd")) - before < 5


class _Recorder(BaseHTTPRequestHandler):
    """Records each request's headers; ``/hop`` sets a cookie and redirects (307, so
    the method and body go along) to the server's ``hop_to``."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.server.seen.append((self.path, dict(self.headers), self.rfile.read(length)))
        if self.path == "/hop":
            self.send_response(307)
            self.send_header("Location", self.server.hop_to)
            self.send_header("Set-Cookie", "sid=cookie-secret; Path=/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _recorder() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen, server.hop_to = [], "/done"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize("credential", ["Authorization", "api-key", "Cookie"])
def test_a_redirect_to_another_port_of_the_same_host_carries_no_credentials(
    app, monkeypatch, credential
):
    """The model API key (Authorization, or Azure's api-key) and cookies are for the
    origin they were sent to: scheme, host and port. Another port of the same host is
    another server, so a redirect there drops them; a redirect within the origin keeps
    them."""
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    first, second = _recorder(), _recorder()
    first.hop_to = f"http://127.0.0.1:{second.server_port}/chat/completions"
    headers = {credential: "sk-secret-5678", "Accept": "application/json"}
    try:
        with app.app_context():
            answer = fetch(
                "POST", f"http://127.0.0.1:{first.server_port}/hop", json={"q": 1}, headers=headers
            )
            assert answer.json() == {"ok": True}
            ((path, sent, body),) = second.seen
            assert path == "/chat/completions" and body == b'{"q": 1}'
            assert sent["Accept"] == "application/json"
            assert {"authorization", "api-key", "cookie"}.isdisjoint(k.lower() for k in sent)
            # Within the origin the credential goes along.
            first.hop_to = "/done"
            fetch("POST", f"http://127.0.0.1:{first.server_port}/hop", headers=headers)
            path, sent, _ = first.seen[-1]
            assert path == "/done" and sent[credential] == "sk-secret-5678"
    finally:
        first.shutdown()
        second.shutdown()
