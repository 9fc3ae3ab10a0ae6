"""Analytics: rollups over the tasks that count, PQL, charts, CSV export and pages."""

from flask import Flask

from workspace.analytics import api, cli, dashboards, views


def init_app(app: Flask) -> None:
    """Register the analytics API and pages, and ``flask analytics``."""
    dashboards.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.analytics_group)
