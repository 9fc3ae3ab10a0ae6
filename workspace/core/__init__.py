"""The workspace domain: orgs, members, projects, workflow, tasks and activity."""

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.core import api, views

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
