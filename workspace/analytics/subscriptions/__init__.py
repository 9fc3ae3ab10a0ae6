"""Dashboard subscriptions (issue 30, docs/delivery.md#subscriptions): a dashboard
mailed on a schedule to each subscriber as they see it, with its PDF attached."""

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the subscription pages, API and job handlers."""
    from workspace.analytics.subscriptions import api, jobs, views  # noqa: F401  (jobs registers)

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(views.public)
