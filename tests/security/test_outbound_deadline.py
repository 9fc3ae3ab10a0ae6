"""Every outbound exchange ends within OUTBOUND_DEADLINE (docs/security.md#deadlines),
against real peers on loopback that drip a byte at a time or stall mid-body.

The peers give up by themselves after ``HOLD`` seconds, so without the deadline a test
fails on its elapsed time instead of hanging.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.agents.conftest import configure_model
from workspace.identity.sso import oidc
from workspace.security.outbound import OutboundError, OutboundTimeout, fetch

#: How long a misbehaving peer keeps a connection before it closes it.
HOLD = 8.0
#: Seconds between two dripped bytes; well under the per-read timeout set below.
DRIP = 0.3
DEADLINE = 1.0
#: The deadline plus slack for a loaded machine; far below HOLD.
WITHIN = DEADLINE + 1.0


class Dripper:
    """A raw TCP peer on loopback; what it does depends on the request path:

    - ``/drip-headers``: a status line, then one header byte every DRIP.
    - ``/drip-body``: full headers (Content-Length 100000), then one body byte every DRIP.
    - ``/drip-close``: headers with no length (the body ends when the socket closes),
      then one byte every DRIP.
    - ``/stall-body``: headers (Content-Length 100), ten bytes, then silence.
    - ``/ldap``: any request is answered with the start of a 1 MiB LDAP message, then
      one byte every DRIP.
    """

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}"

    @property
    def port(self) -> int:
        return self.server.getsockname()[1]

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        ends = time.monotonic() + HOLD
        with conn:
            try:
                conn.settimeout(HOLD)
                request = conn.recv(65536)
                path = request.split(b" ", 2)[1] if request.count(b" ") >= 2 else b""
                if request[:1] == b"\x30":  # an LDAP message, not HTTP
                    conn.sendall(b"\x30\x84\x00\x10\x00\x00")
                    head, drip = b"", b"\x00"
                elif path.startswith(b"/drip-headers"):
                    head, drip = b"HTTP/1.1 200 OK\r\n", b"X"
                elif path.startswith(b"/drip-close"):
                    head, drip = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n", b"x"
                elif path.startswith(b"/stall-body"):
                    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 10
                    drip = b""
                else:
                    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
                    drip = b"x"
                conn.sendall(head)
                while time.monotonic() < ends and not self.stop.is_set():
                    if self.stop.wait(DRIP):
                        break
                    if drip:
                        conn.sendall(drip)
            except OSError:
                pass  # the client gave up: what the deadline is for

    def close(self) -> None:
        self.stop.set()
        self.server.close()


@pytest.fixture(scope="module")
def dripper() -> Iterator[Dripper]:
    peer = Dripper()
    yield peer
    peer.close()


@pytest.fixture
def deadline(app, monkeypatch):
    """Loopback allowed; a per-read timeout the drip never trips, and a short deadline."""
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1", "localhost"])
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 3 * DRIP)
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", DEADLINE)
    return app


@pytest.mark.parametrize("path", ["/drip-headers", "/drip-body", "/drip-close"])
def test_a_dripping_peer_is_cut_off_at_the_deadline(deadline, dripper, path):
    started = time.monotonic()
    with deadline.app_context(), pytest.raises(OutboundTimeout, match="within 1 seconds"):
        fetch("GET", dripper.url + path)
    assert time.monotonic() - started < WITHIN


def test_a_peer_that_stops_mid_body_is_an_outbound_error(app, deadline, dripper, monkeypatch):
    # The per-read timeout ends this one (no 500 from a raw ReadTimeoutError).
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", 5.0)
    started = time.monotonic()
    with app.app_context(), pytest.raises(OutboundTimeout, match="did not answer"):
        fetch("GET", dripper.url + "/stall-body")
    assert time.monotonic() - started < 2


def test_a_fast_peer_is_not_hurt_by_the_deadline(app, deadline):
    server = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"ok":true}')

    threading.Thread(target=answer, daemon=True).start()
    try:
        with app.app_context():
            response = fetch("GET", f"http://127.0.0.1:{server.getsockname()[1]}/")
    finally:
        server.close()
    assert response.status_code == 200 and response.json() == {"ok": True}


def test_domain_verify_against_a_dripping_resolver_is_a_502(
    client, acme, deadline, dripper, monkeypatch
):
    monkeypatch.setitem(deadline.config, "DOH_URL", dripper.url + "/drip-body")
    row = client.post(acme.url("/domains"), json={"domain": "acme.test"}, headers=acme.headers)
    assert row.status_code == 201, row.get_json()
    started = time.monotonic()
    resp = client.post(acme.url(f"/domains/{row.get_json()['id']}/verify"), headers=acme.headers)
    assert time.monotonic() - started < WITHIN
    assert resp.status_code == 502, resp.get_data(as_text=True)
    assert "did not answer within 1 seconds" in resp.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/drip-body", "/stall-body"])
def test_ask_against_a_dripping_model_gives_the_fallback_chart(
    client, app, acme, deadline, dripper, monkeypatch, path
):
    class Model:
        base_url = dripper.url + path + "/v1"

    configure_model(client, acme, Model())
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", DEADLINE if path == "/drip-body" else 5.0)
    started = time.monotonic()
    resp = client.post(
        acme.url("/analytics/ask"), json={"text": "open bugs by assignee"}, headers=acme.headers
    )
    assert time.monotonic() - started < WITHIN
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    # The model ran out of time; the built-in interpreter still reads the words.
    assert body["outcome"] == "timeout" and body["offline"] is True
    assert body["fallback"] is False
    assert (body["metric"], body["dimension"], body["kind"]) == ("open", "assignee", "bug")
    assert body["model_note"]


@pytest.mark.parametrize("path", ["/drip-headers", "/drip-body"])
def test_oidc_discovery_against_a_dripping_provider_is_refused(deadline, dripper, path):
    started = time.monotonic()
    with deadline.app_context(), pytest.raises(oidc.OidcError, match="did not answer"):
        oidc.discover(dripper.url + path)
    assert time.monotonic() - started < WITHIN


def test_the_guard_still_refuses_before_the_deadline_matters(app, dripper):
    with app.app_context(), pytest.raises(OutboundError, match="private"):
        fetch("GET", dripper.url + "/drip-body")


def _ldap_settings(port: int) -> dict:
    return {
        "server_uri": f"ldap://127.0.0.1:{port}",
        "bind_dn": "cn=svc,dc=acme,dc=test",
        "bind_password": "svc-password",
        "search_base": "dc=acme,dc=test",
        "search_filter": "(uid={username})",
        "use_tls": False,
    }


def test_ldap_connection_test_against_a_dripping_directory_ends_at_the_deadline(
    client, app, acme, deadline, dripper, monkeypatch
):
    monkeypatch.setitem(app.config, "LDAP_READ_TIMEOUT", 1)
    started = time.monotonic()
    resp = client.post(
        acme.url("/ldap/test"), json=_ldap_settings(dripper.port), headers=acme.headers
    )
    assert time.monotonic() - started < WITHIN + 0.5
    assert resp.status_code == 200, resp.get_data(as_text=True)
    result = resp.get_json()
    assert result["ok"] is False and "could not be reached" in result["message"]


def test_ldap_sign_in_against_a_dripping_directory_ends_at_the_deadline(
    client, app, acme, deadline, dripper, monkeypatch
):
    monkeypatch.setitem(app.config, "LDAP_READ_TIMEOUT", 1)
    saved = client.put(acme.url("/ldap"), json=_ldap_settings(dripper.port), headers=acme.headers)
    assert saved.status_code == 200, saved.get_data(as_text=True)
    started = time.monotonic()
    resp = client.post(
        "/auth/ldap/login", json={"org": "acme", "username": "ada", "password": "pw"}
    )
    assert time.monotonic() - started < WITHIN + 0.5
    assert resp.status_code == 503, resp.get_data(as_text=True)
    assert "cannot be reached" in resp.get_data(as_text=True)
