"""OIDC single sign-on with IdP group sync (spec §2.2, §2.3, §3.6, §4.1)."""

from flask import Flask

from workspace.identity.sso.models import GroupMapping, SsoAttempt, SsoConnection

__all__ = ["GroupMapping", "SsoAttempt", "SsoConnection", "init_app"]


def init_app(app: Flask) -> None:
    """Register the API and sign-in blueprints; the settings pages join
    ``identity_pages``."""
    from workspace.identity.sso import api, auth_views, views  # noqa: F401  (views adds routes)

    app.register_blueprint(api.bp)
    app.register_blueprint(auth_views.bp)
