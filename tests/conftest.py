"""Shared fixtures: one app per database backend per session, cleaned between tests.

Every database-touching test runs on SQLite and, when ``TEST_DATABASE_URL`` is set
(``make test`` and CI set it), on PostgreSQL too. Each session works in its own
throwaway PostgreSQL database, so parallel runs never share rows.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from tests.factories import (  # noqa: F401  (re-exported for older imports)
    PASSWORD,
    OrgFixture,
    add_person,
    login,
    make_org,
)
from workspace import create_app
from workspace.extensions import db
from workspace.jobs.worker import Worker

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


def _pg_admin_url() -> str:
    url = os.environ["TEST_DATABASE_URL"]
    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(False)


@pytest.fixture(scope="session")
def database_url(request, tmp_path_factory) -> Iterator[str]:
    backend = request.param
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"
        return
    admin = create_engine(_pg_admin_url(), isolation_level="AUTOCOMMIT")
    name = f"ws_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:  # fails loudly when PostgreSQL is down
        conn.execute(text(f'CREATE DATABASE "{name}"'))
        # A test database is thrown away: a commit need not wait for its WAL to reach
        # the disk (crash safety is all this gives up; the tests' reads are unchanged).
        conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    yield make_url(_pg_admin_url()).set(database=name).render_as_string(False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def pytest_generate_tests(metafunc):
    if "database_url" in metafunc.fixturenames:
        # A check of what the pages are (axe-core's findings, focus, layout at 390 px)
        # reads markup no database changes: it runs once, on the embedded default.
        markup_only = metafunc.definition.get_closest_marker("markup_only") is not None
        backends = BACKENDS[:1] if markup_only else BACKENDS
        if metafunc.definition.get_closest_marker("postgres_only") is not None:
            backends = BACKENDS[1:]
        metafunc.parametrize("database_url", backends, indirect=True, scope="session")


@pytest.fixture(scope="session")
def app_session(database_url, tmp_path_factory) -> Iterator[Flask]:
    instance = tmp_path_factory.mktemp("instance")
    os.environ["WORKSPACE_INSTANCE"] = str(instance)
    app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
            "BASE_URL": "http://localhost",
            "API_URL": "http://localhost",
            # Cheap scrypt: verification reads the cost from each hash, so this only
            # makes the many test passwords fast to set and check.
            "PASSWORD_HASH_METHOD": "scrypt:1024:8:1",
            # Tests that need a worker start one (tests/jobs/conftest.py), so no other
            # test's first request starts the embedded one.
            "JOBS_EMBEDDED_WORKER": False,
        }
    )
    with app.app_context():
        upgrade()
    yield app
    with app.app_context():
        db.engine.dispose()


def _clean(app: Flask) -> None:
    with app.app_context():
        db.session.remove()
        tables = [t.name for t in reversed(db.metadata.sorted_tables)]
        if db.engine.dialect.name != "postgresql":
            with db.engine.begin() as conn:
                for table in tables:
                    conn.execute(text(f'DELETE FROM "{table}"'))
            return
        # DELETE with triggers and foreign keys off (session_replication_role), not
        # TRUNCATE: TRUNCATE makes new files for each of the 64 tables and their
        # indexes, 0.7-0.9 s a test; deleting a test's few rows takes 15-20 ms. Every
        # table of the schema, as TRUNCATE ... CASCADE reached those outside the models.
        with db.engine.connect() as conn:
            everything = conn.scalars(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                     "AND tablename != 'alembic_version'")
            ).all()  # fmt: skip
        # A browser test's page may still be polling the live server (a dashboard's
        # auto-refresh) while it closes: its locks can meet the clean's. PostgreSQL
        # aborts one side or the clean times out; the request is harmless, so the
        # clean waits briefly and tries again.
        for attempt in range(5):
            try:
                with db.engine.begin() as conn:
                    conn.execute(text("SET LOCAL lock_timeout = '5s'"))
                    conn.execute(text("SET LOCAL session_replication_role = replica"))
                    for table in everything:
                        conn.execute(text(f'DELETE FROM "{table}"'))
                return
            except OperationalError:
                if attempt == 4:
                    raise
                time.sleep(0.2 * (attempt + 1))


@pytest.fixture
def app(app_session: Flask) -> Iterator[Flask]:
    # No app context is held across the test: each test-client request must get a
    # fresh one (and a fresh ``g``), exactly as in production.
    yield app_session
    _clean(app_session)


@pytest.fixture
def embedded_worker(app: Flask) -> Iterator[Worker]:
    """A worker of the embedded default (in-process broker, worker threads beside the
    app), for a test whose jobs must run. Started per test and stopped before the
    tables are cleaned: its heartbeat writes would fight PostgreSQL's TRUNCATE."""
    worker = Worker(app, threads=2, scheduler=False)
    worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def client(app: Flask):
    return app.test_client()


@pytest.fixture
def acme(app) -> OrgFixture:
    return make_org(app, "Acme", "owner@acme.test")


@pytest.fixture
def globex(app) -> OrgFixture:
    return make_org(app, "Globex", "owner@globex.test")


@dataclass
class LiveServer:
    url: str
    app: Flask


@pytest.fixture(scope="session")
def live_server_session(app_session: Flask) -> Iterator[LiveServer]:
    """The app served over a real socket on loopback, once per backend per session."""
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app_session, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield LiveServer(url=f"http://127.0.0.1:{server.server_port}", app=app_session)
    server.shutdown()


@pytest.fixture
def live_server(live_server_session: LiveServer, app: Flask) -> LiveServer:
    """A live server whose database is cleaned after the test like ``app``'s."""
    return live_server_session


CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright, started once per session.

    There is no skip: without Chromium the browser tests fail and say how to install it.
    """
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: run `make test-deps` "
            "(apt-get install chromium) or set CHROMIUM_PATH."
        )
    with sync_playwright() as pw:
        instance = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--headless",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()
