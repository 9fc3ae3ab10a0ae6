"""SCIM 2.0 user and group provisioning (docs/scim.md): the
org's bearer token, its settings page and JSON API, and the SCIM endpoints an IdP
such as Okta or Entra ID drives."""

from flask import Flask

# group_routes adds the /Groups routes to routing's blueprint before it is registered.
from workspace.scim import (  # noqa: F401
    api,
    cli,
    errors,
    group_routes,
    routing,
    signin_views,
    views,
)


def init_app(app: Flask) -> None:
    """Register the SCIM endpoints, the token API and page, and ``flask scim``."""
    errors.init_app(app)
    app.register_blueprint(routing.bp)
    app.register_blueprint(signin_views.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.scim_group)
