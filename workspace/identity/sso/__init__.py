"""OIDC single sign-on with IdP group sync (docs/sso.md)."""

from flask import Flask

from workspace.auth.sessions import on_sign_out
from workspace.identity.groupsync.models import GroupMapping
from workspace.identity.sso import api, logout, signin_views, views
from workspace.identity.sso.models import SsoAttempt, SsoConnection

__all__ = ["GroupMapping", "SsoAttempt", "SsoConnection", "init_app"]


def init_app(app: Flask) -> None:
    """Register the JSON API, the settings pages and the public sign-in routes."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(signin_views.bp)
    on_sign_out(app, logout.end_session_url)
