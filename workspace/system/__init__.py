"""The instance's own health and its operators' page (docs/jobs.md#health-and-the-system-page):
``/healthz`` (liveness, from memory), ``/readyz`` (database, broker, a live worker,
migrations at head) and ``/system``, the job queue for the instance's operators."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.system import api, views

    app.config.setdefault("SYSTEM_OPERATORS", ())
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.add_template_filter(views.ago, "ago")
    api.serve_liveness(app)
