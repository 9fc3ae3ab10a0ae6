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
