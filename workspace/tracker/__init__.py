"""The project tracker people use: org home, projects and tasks, as JSON API and
HTML pages over the core services."""

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.tracker import api, views

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
