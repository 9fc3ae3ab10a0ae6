"""Real peers for the identity tests, each started once per session on loopback:
a DNS-over-HTTPS JSON server whose answers each test sets, and the
``oidc-provider-mock`` OpenID provider as a separate process.

Nothing here is autouse: tests ask for ``doh`` / ``oidc_provider`` /
``outbound_local`` by name, so other identity tests (LDAP) are unaffected.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

LOCAL_HOSTS = ["127.0.0.1", "localhost"]


@dataclass
class DohState:
    """What the DoH server answers: per name, a JSON payload, raw text, or a delay."""

    answers: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    delay: dict[str, float] = field(default_factory=dict)
    #: When set, every request waits here first (two orgs verifying "at once").
    barrier: threading.Barrier | None = None
    queries: list[tuple[str, str]] = field(default_factory=list)
    #: Other paths this server answers with JSON (a stand-in for a misbehaving IdP).
    documents: dict[str, Any] = field(default_factory=dict)

    def reset(self) -> None:
        self.documents.clear()
        self.answers.clear()
        self.raw.clear()
        self.delay.clear()
        self.barrier = None
        self.queries.clear()

    def txt(self, name: str, *datas: str, cname: str | None = None) -> None:
        """Answer TXT records for ``name`` (data given exactly as the resolver sends it)."""
        answer = []
        if cname:
            answer.append({"name": name + ".", "type": 5, "TTL": 300, "data": cname + "."})
        answer += [
            {"name": (cname or name) + ".", "type": 16, "TTL": 300, "data": d} for d in datas
        ]
        self.answers[name] = {
            "Status": 0,
            "TC": False,
            "RD": True,
            "RA": True,
            "AD": False,
            "CD": False,
            "Question": [{"name": name + ".", "type": 16}],
            "Answer": answer,
        }


class _DohHandler(BaseHTTPRequestHandler):
    state: DohState

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_GET(self):
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        name = (query.get("name") or [""])[0]
        self.state.queries.append((name, (query.get("type") or [""])[0]))
        if self.state.barrier is not None:
            self.state.barrier.wait(timeout=10)
        if name in self.state.delay:
            time.sleep(self.state.delay[name])
        if parts.path in self.state.documents:
            self._send(200, json.dumps(self.state.documents[parts.path]), "application/json")
        elif parts.path != "/resolve":
            self._send(404, "not found", "text/plain")
        elif name in self.state.raw:
            self._send(200, self.state.raw[name], "text/html")
        else:
            payload = self.state.answers.get(
                name, {"Status": 3, "Question": [{"name": name + ".", "type": 16}]}
            )
            self._send(200, json.dumps(payload), "application/dns-json")

    def _send(self, status: int, body: str, content_type: str) -> None:
        data = body.encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)


@pytest.fixture(scope="session")
def doh_server() -> Iterator[tuple[str, DohState]]:
    state = DohState()
    handler = type("Handler", (_DohHandler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", state
    server.shutdown()
    server.server_close()


@pytest.fixture
def outbound_local(app, monkeypatch):
    """Let the outbound guard reach the loopback peers these tests start."""
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", list(LOCAL_HOSTS))
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 5.0)
    return app


@pytest.fixture
def doh(app, doh_server, outbound_local, monkeypatch) -> Iterator[DohState]:
    url, state = doh_server
    state.reset()
    monkeypatch.setitem(app.config, "DOH_URL", url)
    yield state
    state.reset()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class OidcProvider:
    url: str

    def set_user(self, sub: str, **claims: Any) -> None:
        resp = requests.put(f"{self.url}/users/{sub}", json=claims, timeout=5)
        assert resp.status_code == 204, resp.text

    def authorize(self, authorization_url: str, sub: str) -> str:
        """Approve at the provider as ``sub`` (no browser); returns the redirect back."""
        resp = requests.post(authorization_url, data={"sub": sub}, allow_redirects=False, timeout=5)
        assert resp.status_code == 302, resp.text[:500]
        return resp.headers["Location"]


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory) -> Iterator[OidcProvider]:
    """oidc-provider-mock in its own process; its issuer is http://127.0.0.1:<port>."""
    port = _free_port()
    log = (tmp_path_factory.mktemp("oidc") / "provider.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "oidc_provider_mock",
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--require-nonce",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=os.environ | {"NO_COLOR": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"oidc-provider-mock exited with {proc.returncode}; see {log.name}")
        try:
            if requests.get(url + "/.well-known/openid-configuration", timeout=1).ok:
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("oidc-provider-mock did not start within 20 s")
        time.sleep(0.1)
    yield OidcProvider(url)
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


CLIENT_SECRET = "s3cr3t-Client-VALUE-9f8e7d"


@dataclass
class SsoSetup:
    org: Any
    provider: OidcProvider
    domain: str = "acme.test"

    def start(self, client, domain: str | None = None, **params: str) -> str:
        """GET /auth/sso/start as an API client; returns the authorization URL."""
        resp = client.get(
            "/auth/sso/start",
            query_string={"domain": domain or self.domain} | params,
            headers={"Accept": "application/json"},
        )
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp.get_json()["authorization_url"]

    def sign_in(self, client, sub: str, **claims: Any):
        """The whole dance: start, approve at the provider, come back. Returns the
        callback response."""
        if claims:
            self.provider.set_user(sub, **claims)
        back = self.provider.authorize(self.start(client), sub)
        return client.get(_local(back))


def _local(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def verify_domain_for(client, org, doh: DohState, domain: str) -> None:
    row = client.post(org.url("/domains"), json={"domain": domain}, headers=org.headers)
    assert row.status_code == 201, row.get_json()
    body = row.get_json()
    doh.txt(domain, body["txt_record"]["value"])
    resp = client.post(org.url(f"/domains/{body['id']}/verify"), headers=org.headers)
    assert resp.get_json()["state"] == "verified"


@pytest.fixture
def sso(app, client, acme, doh, oidc_provider) -> SsoSetup:
    """Acme with acme.test verified and SSO enabled against the provider process."""
    verify_domain_for(client, acme, doh, "acme.test")
    resp = client.put(
        acme.url("/sso"),
        headers=acme.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": oidc_provider.url,
            "client_id": "workspace-acme",
            "client_secret": CLIENT_SECRET,
            "enabled": True,
        },
    )
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["discovery"]["ok"], resp.get_json()
    return SsoSetup(org=acme, provider=oidc_provider)
