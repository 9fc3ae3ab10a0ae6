"""What an org's owners and admins run: the org's general settings, its members and
their invitations, and the audit log of every identity and permission change."""

from flask import Flask

from workspace.admin import api, sessions, views


def init_app(app: Flask) -> None:
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    sessions.init_app(app)
