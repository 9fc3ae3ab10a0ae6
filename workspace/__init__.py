"""Workspace: an org's identity systems in front of a shared workspace of projects and
tasks, and analytics of how the work flows."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

ROOT = Path(__file__).resolve().parent.parent

#: Capability packages, in registration order. Each exposes ``init_app(app)``.
CAPABILITIES = (
    "workspace.jobs",
    "workspace.tracker",
    "workspace.tracker.search",
    "workspace.tracker.command_menu",
    "workspace.tracker.inbox",
    "workspace.tracker.saved_views",
    "workspace.auth.views",
    "workspace.api.views",
    "workspace.identity",
    "workspace.scim",
    "workspace.analytics",
    "workspace.analytics.pql",
    "workspace.analytics.dashboards",
    "workspace.analytics.reports",
    "workspace.analytics.exports",
    "workspace.analytics.subscriptions",
    "workspace.analytics.alerts",
    "workspace.agents",
    "workspace.admin",
    "workspace.admin.webhooks",
    "workspace.job_status",
    "workspace.system",
    "workspace.system.mail",
)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    from importlib import import_module

    from workspace import cli, error_handlers, replica, web
    from workspace.config import load_config
    from workspace.extensions import csrf, db, htmx, limiter, migrate
    from workspace.security import request_guard

    instance_path = os.environ.get("WORKSPACE_INSTANCE", str(ROOT / "instance"))
    app = Flask(
        __name__,
        instance_path=instance_path,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.update(load_config(app.instance_path))
    if config:
        app.config.update(config)

    _trust_proxies(app)
    db.init_app(app)
    replica.init_app(app)
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    csrf.init_app(app)
    htmx.init_app(app)
    limiter.init_app(app)
    request_guard.init_app(app)

    for name in CAPABILITIES:
        import_module(name).init_app(app)

    error_handlers.init_app(app)
    web.init_app(app)
    cli.init_app(app)
    _sqlite_pragmas(app)
    return app


def _trust_proxies(app: Flask) -> None:
    """Behind ``TRUSTED_PROXIES`` proxies, the client address (for sign-in limits and
    audit rows) and scheme come from their X-Forwarded-For/-Proto headers; with 0
    (the default) those headers are ignored, so a client cannot choose its address."""
    from werkzeug.middleware.proxy_fix import ProxyFix

    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count < 0:
        raise ValueError("TRUSTED_PROXIES must be 0 or a positive number of proxies.")
    if count:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count)  # type: ignore[method-assign]


def _sqlite_pragmas(app: Flask) -> None:
    """WAL and foreign keys for the embedded SQLite database."""
    from sqlalchemy import event

    from workspace.dbfunctions import register_sqlite
    from workspace.extensions import db

    if not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        return
    with app.app_context():
        engine = db.engine

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record):  # pragma: no cover - driver hook
            register_sqlite(dbapi_conn)
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.close()
