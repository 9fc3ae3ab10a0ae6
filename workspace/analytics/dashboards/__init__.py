"""Dashboards: user-built grids of widgets over the analytics custom chart, shared
within the org, filtered in three layers, printable and exportable to PDF."""

from flask import Flask

from workspace.analytics.dashboards import api, views


def init_app(app: Flask) -> None:
    """Register the dashboards API and pages (called from workspace.analytics)."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
