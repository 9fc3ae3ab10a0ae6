"""/healthz answers from memory; /readyz says which of database, broker, workers and
migrations is not ready, and why, within its deadline and without a password."""

from __future__ import annotations

import socket
import time
from datetime import timedelta

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from workspace.extensions import db
from workspace.jobs.models import WorkerBeat
from workspace.jobs.runner import WORKER_ID
from workspace.system import health
from workspace.types import utcnow


def _beat(app, worker_id: str, age: timedelta = timedelta(0)) -> None:
    """A heartbeat row, as a worker on another machine (or a stopped one) leaves it."""
    now = utcnow() - age
    with app.app_context():
        db.session.add(
            WorkerBeat(
                id=worker_id, host="elsewhere", pid=1, queues="default", started_at=now, seen_at=now
            )
        )
        db.session.commit()


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_port():
    """A port that takes connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_healthz_answers_from_memory(app, client):
    statements = []
    with app.app_context():
        engine = db.engine

    def count(*args):
        statements.append(args)

    event.listen(engine, "before_cursor_execute", count)
    try:
        response = client.get("/healthz")
        head = client.head("/healthz")
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"
    assert head.status_code == 200 and head.data == b""
    assert statements == []


def test_readyz_is_ok_with_a_live_worker_at_the_migrations_head(client, worker):
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["status"] == "ok" and body["failed"] == []
    checks = body["checks"]
    assert list(checks) == ["broker", "database", "migrations", "workers"]
    assert all(check["ok"] for check in checks.values())
    assert checks["broker"]["kind"] == "embedded"
    assert checks["workers"]["live"] == 1
    assert checks["migrations"]["current"] == checks["migrations"]["head"]
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_is_public_and_needs_no_csrf(app, client, worker):
    assert client.get("/readyz").status_code == 200  # never signed in
    assert client.post("/readyz").status_code == 405


def test_without_a_live_worker_readyz_is_503_naming_workers(app, client):
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 503
    assert body["status"] == "fail" and body["failed"] == ["workers"]
    assert body["checks"]["workers"]["live"] == 0
    assert "embedded" in body["checks"]["workers"]["reason"]


def test_embedded_default_counts_only_this_processs_worker(app, client):
    # A beat from another process cannot take jobs from this process's in-memory broker,
    # and this process's own beat counts only while it is fresh.
    _beat(app, "elsewhere:1:abcdef")
    _beat(app, WORKER_ID, age=timedelta(seconds=30))
    body = client.get("/readyz").get_json()
    assert body["failed"] == ["workers"]


def test_a_real_broker_counts_any_live_worker(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "JOBS_BROKER_URL", "redis://127.0.0.1:6379/15")
    _beat(app, "elsewhere:1:abcdef")
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["checks"]["broker"]["kind"] == "redis"
    assert body["checks"]["workers"]["live"] == 1


@pytest.mark.parametrize(
    "url",
    ["redis://:s3cret-pw@127.0.0.1:{port}/0", "amqp://guest:s3cret-pw@127.0.0.1:{port}/%2F"],
    ids=["redis", "rabbitmq"],
)
def test_a_broker_on_a_closed_port_is_503_naming_broker(app, client, monkeypatch, closed_port, url):
    monkeypatch.setitem(app.config, "JOBS_BROKER_URL", url.format(port=closed_port))
    _beat(app, "elsewhere:1:abcdef")
    started = time.monotonic()
    response = client.get("/readyz")
    elapsed = time.monotonic() - started
    body = response.get_json()
    assert response.status_code == 503
    assert body["failed"] == ["broker"]
    assert body["checks"]["broker"]["reason"]
    assert "s3cret-pw" not in response.get_data(as_text=True)
    assert elapsed < 3.0


def test_a_broker_that_never_answers_is_cut_at_the_deadline(app, client, monkeypatch, silent_port):
    monkeypatch.setitem(app.config, "JOBS_BROKER_URL", f"redis://127.0.0.1:{silent_port}/0")
    monkeypatch.setitem(app.config, "READYZ_BROKER_TIMEOUT", 0.3)
    _beat(app, "elsewhere:1:abcdef")
    started = time.monotonic()
    body = client.get("/readyz").get_json()
    assert body["failed"] == ["broker"]
    assert time.monotonic() - started < 2.0


def test_an_unreachable_database_fails_every_check_that_needs_it(app, client, monkeypatch):
    with app.app_context():
        engine = db.engine

    def refuse():
        raise OperationalError("connect", {}, Exception("connection refused (password=hunter2)"))

    monkeypatch.setattr(engine, "connect", refuse)
    monkeypatch.setattr(engine, "url", engine.url.set(password="hunter2"))
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 503
    assert body["failed"] == ["database", "workers", "migrations"]
    assert body["checks"]["database"]["reason"].startswith("Exception: connection refused")
    assert "hunter2" not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("current", "heads", "ok"),
    [
        (["0013"], ["0013"], True),
        (["0012"], ["0013"], False),  # behind
        (["0014"], ["0013"], False),  # a newer release's revision
        ([], ["0013"], False),  # never migrated
        (["a", "b"], ["b", "a"], True),  # two branches, both at their heads
        (["a"], ["a", "b"], False),
        ([], [], False),  # no scripts found
    ],
)
def test_migrations_are_at_head_only_when_the_revisions_equal_the_heads(current, heads, ok):
    assert health.at_head(current, heads) is ok


def test_a_reason_never_carries_the_password():
    exc = ValueError("could not reach redis://:pw-123@10.0.0.1:6379\nsecond line")
    assert (
        health.safe_reason(exc, "pw-123")
        == "ValueError: could not reach redis://:***@10.0.0.1:6379"
    )
