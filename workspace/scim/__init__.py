"""SCIM 2.0 user provisioning (docs/scim.md): the
org's bearer token, its settings page and JSON API, and the SCIM endpoints an IdP
such as Okta or Entra ID drives."""

from flask import Flask

from workspace.scim import api, cli, errors, routing, signin_views, views


def init_app(app: Flask) -> None:
    """Register the SCIM endpoints, the token API and page, and ``flask scim``."""
    errors.init_app(app)
    app.register_blueprint(routing.bp)
    app.register_blueprint(signin_views.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.scim_group)
