"""A real HTTP receiver on loopback for the webhook tests, started once per session.
Each path behaves as a test asks (answer 200, 500, fail N times first, redirect, sleep,
send a large body), and every request is checked with the reference library,
``standardwebhooks.Webhook(secret).verify``, against the secrets the test gave it."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook, WebhookVerificationError

from workspace.extensions import db
from workspace.jobs import runner
from workspace.jobs.models import Job, JobState


@dataclass
class Got:
    path: str
    headers: dict[str, str]
    body: bytes
    #: Which of the path's secrets verified the request (their index), by the library.
    verified_by: list[int]


@dataclass
class Receiver:
    base: str
    got: list[Got] = field(default_factory=list)
    #: path -> (status, body) answers; "fail:N" paths fail N times, then answer 200.
    secrets: dict[str, list[str]] = field(default_factory=dict)
    failures_left: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return self.base + path

    def path(self, name: str) -> str:
        """A fresh path (one per test), so tests sharing the server never mix."""
        return f"/{name}/{uuid.uuid4().hex[:8]}"

    def requests(self, path: str) -> list[Got]:
        with self.lock:
            return [g for g in self.got if g.path == path]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            verified = []
            for index, secret in enumerate(receiver.secrets.get(self.path, [])):
                try:
                    Webhook(secret).verify(body, headers)
                    verified.append(index)
                except WebhookVerificationError:
                    pass
            with receiver.lock:
                receiver.got.append(Got(self.path, headers, body, verified))
                left = receiver.failures_left.get(self.path, 0)
                if left:
                    receiver.failures_left[self.path] = left - 1
            kind = self.path.split("/")[1]
            if kind == "fail" or left:
                self._answer(500, b"receiver is down")
            elif kind == "redirect":
                self.send_response(302)
                self.send_header("Location", receiver.url("/ok/elsewhere"))
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif kind == "big":
                self._answer(200, b"x" * 10_000)
            elif kind == "slow":
                time.sleep(3)
                self._answer(200, b"late")
            else:
                self._answer(200, b'{"ok":true}')

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture(scope="session")
def receiver_server() -> Iterator[Receiver]:
    holder: dict = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(_proxy(holder)))
    server.daemon_threads = True
    receiver = Receiver(base=f"http://127.0.0.1:{server.server_address[1]}")
    holder["r"] = receiver
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield receiver
    server.shutdown()
    server.server_close()


def _proxy(holder: dict) -> Receiver:
    class Late:
        def __getattr__(self, name):
            return getattr(holder["r"], name)

    return Late()  # type: ignore[return-value]


@pytest.fixture
def receiver(app, receiver_server, monkeypatch) -> Receiver:
    """The receiver, with loopback allowed for this test (OUTBOUND_ALLOW_PRIVATE) and
    retries that wait nothing: a test runs them at once (``run_deliveries``)."""
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    monkeypatch.setitem(app.config, "WEBHOOKS_RETRY_DELAYS", [0, 0, 0])
    monkeypatch.setitem(app.config, "WEBHOOKS_DEADLINE", 2)
    return receiver_server


def run_deliveries(app, rounds: int = 1) -> int:
    """Run what is queued the way a worker does (``jobs.runner.run``): every queued
    ``webhooks.deliver`` job, then ``webhooks.due`` for the retries now due; ``rounds``
    times. Answers how many delivery jobs ran."""
    ran = 0
    for _ in range(rounds):
        with app.app_context():
            ids = list(
                db.session.scalars(
                    select(Job.id).where(
                        Job.kind == "webhooks.deliver", Job.state == JobState.QUEUED
                    )
                )
            )
            db.session.remove()
        for job_id in ids:
            runner.run(app, str(job_id))
            ran += 1
        with app.app_context():
            from workspace.delivery.webhooks import sending
            from workspace.types import utcnow

            sending.run_due(utcnow())
            db.session.commit()
            db.session.remove()
    return ran
