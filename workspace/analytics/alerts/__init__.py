"""Alerts on analytics figures (issue 30, docs/delivery.md#alerts): a widget's number
checked on a schedule as its creator sees it, mailed when a condition starts to hold
(and, when asked, when it stops), with muting and a history."""

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the alert pages, API and job."""
    from workspace.analytics.alerts import api, jobs, views  # noqa: F401  (jobs registers)

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
