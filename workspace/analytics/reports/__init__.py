"""The analytics reports: overview, flow, workload, scatter, forecast, pivot and the
custom chart, as the JSON API (with the overview's CSV) and the Analytics page, one tab
per report (docs/analytics.md). They read the rollups, PQL and the drill-down links of
the package below; nothing below imports them."""

from flask import Flask

from workspace.analytics.reports import api, views


def init_app(app: Flask) -> None:
    """Register the analytics API and the Analytics page."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
