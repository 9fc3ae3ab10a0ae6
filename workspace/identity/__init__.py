"""Identity: verified domains, OIDC single sign-on with group sync, LDAP sign-in."""

from importlib import import_module

from flask import Flask

SUBPACKAGES = (
    "workspace.identity.domains",
    "workspace.identity.sso",
    "workspace.identity.ldap",
)


def init_app(app: Flask) -> None:
    for name in SUBPACKAGES:
        import_module(name).init_app(app)
    # Registered last: subpackages add their page routes to it in their init_app.
    from workspace.identity.pages import bp

    app.register_blueprint(bp)
