"""What an org's owners and admins run: the org's general settings, its members and
their invitations, and the audit log of every identity and permission change."""

from flask import Flask

from workspace.admin import api, session_api, session_pages, views


def init_app(app: Flask) -> None:
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(session_api.bp)
    app.register_blueprint(session_pages.bp)
