"""The instance's own health and its operators' page (docs/jobs.md#health-and-the-system-page):
``/healthz`` (liveness, from memory), ``/readyz`` (database, broker, a live worker,
migrations at head) and ``/system``, the job queue for the instance's operators."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.system import api, views

    app.config.setdefault("SYSTEM_OPERATORS", ())
    # The whole readiness answer, and the broker's part of it, in seconds; PostgreSQL's
    # statement timeout for its queries, in milliseconds.
    app.config.setdefault("READYZ_DEADLINE", 2.5)
    app.config.setdefault("READYZ_BROKER_TIMEOUT", 2.0)
    app.config.setdefault("READYZ_STATEMENT_TIMEOUT_MS", 1000)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.add_template_filter(views.ago, "ago")
    api.serve_liveness(app)
