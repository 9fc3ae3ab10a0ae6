"""Sessions an org controls (docs/security.md#sessions): the org's session policy,
a member's own sessions, and an admin's "sign out everywhere"."""

from flask import Flask

from workspace.admin.sessions import api, views


def init_app(app: Flask) -> None:
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
