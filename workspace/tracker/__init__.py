"""The project tracker people use: org home, projects and tasks, as JSON API and
HTML pages over the core services."""

from flask import Flask

from workspace.tracker import api, views


def init_app(app: Flask) -> None:
    """Register the tracker's JSON API and pages."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
