"""Enforced SSO per verified domain, with break-glass owners (docs/sso.md#enforced-sso)."""

from flask import Flask

from workspace.identity.enforced_sso import api, views


def init_app(app: Flask) -> None:
    """Register the JSON API and the Enforced SSO settings page."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
