"""Analytics read from a hot standby, and never show a person less than they just did
(workspace/replica.py, docs/scaling.md#read-replicas). Real primary, real standby:
replay is paused on the standby to make it lag."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from tests.factories import add_person, login, make_org, member_id, new_task, setup_project
from workspace import create_app, replica
from workspace.extensions import db


def _app(pair, tmp_path, replica_url: str, **config) -> Flask:
    app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": pair.primary_url,
            "DATABASE_REPLICA_URL": replica_url,
            "REPLICA_WAIT_SECONDS": 0.3,
            "REPLICA_MAX_LAG_SECONDS": 3.0,
            "REPLICA_TIMEOUT_SECONDS": 1.0,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
            "PASSWORD_HASH_METHOD": "scrypt:1024:8:1",
            "JOBS_EMBEDDED_WORKER": False,
            "BASE_URL": "http://localhost",
            "SYSTEM_OPERATORS": ("owner@readyco.test",),
            **config,
        }
    )
    return app


@pytest.fixture(scope="module")
def replicated(pg_pair, tmp_path_factory) -> Iterator[Flask]:
    app = _app(pg_pair, tmp_path_factory.mktemp("replica"), pg_pair.standby_url)
    with app.app_context():
        upgrade()
    yield app
    with app.app_context():
        db.engine.dispose()
        app.extensions["replica"].engine.dispose()


def _pause(pg_pair) -> None:
    """Let the standby catch up, then stop its replay: it lags from here on."""
    _wait_replayed(pg_pair)
    pg_pair.on_standby("SELECT pg_wal_replay_pause()")


@pytest.fixture
def resume(pg_pair) -> Iterator[None]:
    yield
    pg_pair.on_standby("SELECT pg_wal_replay_resume()")


def _total(client, org) -> int:
    resp = client.get(org.url("/analytics/overview"), headers=org.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()["total"]


def _org(app, name: str):
    org = make_org(app, name, f"owner@{name.lower()}.test")
    reader = add_person(app, org.org_id, f"reader@{name.lower()}.test", role="admin")
    return org, reader


def _wait_replayed(pg_pair) -> None:
    target = pg_pair.on_primary("SELECT pg_current_wal_lsn()")
    for _ in range(200):
        if pg_pair.on_standby(f"SELECT pg_last_wal_replay_lsn() >= '{target}'") == "t":
            return
        time.sleep(0.02)
    raise AssertionError("the standby did not catch up")


def test_the_writer_sees_their_write_and_others_read_the_lagging_replica(
    replicated, pg_pair, resume
):
    client = replicated.test_client()
    org, reader = _org(replicated, "Lagco")
    project, _ = setup_project(client, org)
    new_task(client, org, project, title="Before")
    _pause(pg_pair)
    assert _total(client, reader) == 1

    new_task(client, org, project, title="Just written")
    # The writer's next read waits for the standby, gives up after 0.3 s and reads
    # the primary: they see their own write.
    started = time.monotonic()
    assert _total(client, org) == 2
    assert time.monotonic() - started >= 0.3
    # Someone else reads the standby, which has not replayed it (within the 3 s bound).
    assert _total(client, reader) == 1

    # Past the bound, the standby counts as lagging: everyone reads the primary.
    time.sleep(3.1)
    assert _total(client, reader) == 2


def test_read_your_writes_is_per_person(replicated, pg_pair, resume):
    """Once the standby has replayed my write, I read it there at once, even while
    someone else's newer write has not arrived."""
    client = replicated.test_client()
    org, other = _org(replicated, "Fastco")
    project, _ = setup_project(client, org)
    new_task(client, org, project, title="Mine")
    _pause(pg_pair)
    new_task(client, other, project, title="Theirs, not replayed")
    started = time.monotonic()
    assert _total(client, org) == 1  # the standby: it has all of mine
    assert time.monotonic() - started < 0.3  # and no waiting for it
    assert _total(client, other) == 2  # theirs: waited, then the primary


def test_permissions_are_read_on_the_primary(replicated, pg_pair, resume):
    """A member deactivated on the primary is refused at once, even while the standby
    still lists them: who may read is never read from the replica."""
    client = replicated.test_client()
    org, reader = _org(replicated, "Gateco")
    _pause(pg_pair)
    on_replica: list[str] = []
    engine = replicated.extensions["replica"].engine
    seen = lambda conn, cursor, statement, *args: on_replica.append(statement)  # noqa: E731
    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert _total(client, reader) == 0
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    # The read did go to the standby (so the refusal below is not just "no replica").
    assert any("task" in s for s in on_replica), on_replica
    gone = member_id(replicated, org.org_id, "reader@gateco.test")
    resp = client.patch(org.url(f"/members/{gone}"), json={"active": False}, headers=org.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    resp = client.get(reader.url("/analytics/overview"), headers=reader.headers)
    assert resp.status_code in (401, 404)


def test_an_unreachable_replica_means_the_primary_not_an_error(pg_pair, tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    app = _app(pg_pair, tmp_path, f"postgresql://postgres@127.0.0.1:{closed}/postgres")
    client = app.test_client()
    org, _ = _org(app, "Downco")
    project, _ = setup_project(client, org)
    new_task(client, org, project, title="Still counted")
    started = time.monotonic()
    assert _total(client, org) == 1
    assert time.monotonic() - started < 3
    # The read tried the standby, found it down and now leaves it alone for a while.
    assert app.extensions["replica"].resting_until > time.monotonic()
    with app.app_context():
        seen = replica.lag()
    assert seen["ok"] is False and "primary" in seen["reason"]
    ready = client.get("/readyz").get_json()
    assert ready["checks"]["replica"]["ok"] is False
    assert "replica" not in ready["failed"]  # reads still work: the node stays in


def test_a_read_that_fails_on_the_replica_runs_again_on_the_primary(replicated, pg_pair):
    client = replicated.test_client()
    org, _ = _org(replicated, "Flakyco")
    project, _ = setup_project(client, org)
    new_task(client, org, project, title="One")
    _wait_replayed(pg_pair)
    replica_state = replicated.extensions["replica"]
    statements = []

    # Failure injection: the replica's connection dies once the request is under way
    # (a link cut mid-read, a query cancelled by replay).
    def fail_first_read(conn, cursor, statement, *args):
        statements.append(statement)
        if "pg_last_wal_replay_lsn" not in statement and len(statements) <= 2:
            raise OperationalError(statement, {}, Exception("server closed the connection"))

    event.listen(replica_state.engine, "before_cursor_execute", fail_first_read)
    try:
        assert _total(client, org) == 1
        assert len(statements) == 2, statements  # the probe, then the failed read
        # The process leaves the replica alone for a while: no timeout per request.
        assert _total(client, org) == 1
        assert len(statements) == 2
    finally:
        event.remove(replica_state.engine, "before_cursor_execute", fail_first_read)
        replica_state.resting_until = 0.0


def test_readyz_reports_the_replicas_lag(replicated, pg_pair, resume):
    client = replicated.test_client()
    org, _ = _org(replicated, "Lagsco")
    project, _ = setup_project(client, org)
    _pause(pg_pair)
    new_task(client, org, project, title="Unreplayed")
    check = client.get("/readyz").get_json()["checks"]["replica"]
    assert check["ok"] is True
    assert check["lag_bytes"] > 0


def test_the_system_page_shows_the_lag_to_operators(replicated, pg_pair, resume):
    client = replicated.test_client()
    org, _ = _org(replicated, "Readyco")
    _pause(pg_pair)
    setup_project(client, org)  # writes: the standby falls behind
    login(client, org.owner_email)
    page = client.get("/system").get_data(as_text=True)
    assert "Read replica" in page
    assert re.search(r"<strong>[1-9][\d,]* bytes</strong> of WAL behind", page)
