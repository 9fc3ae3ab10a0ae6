"""Identity: verified domains, OIDC single sign-on with group sync, LDAP sign-in.

Each subpackage registers its own blueprints (one for its JSON API, one for its
settings pages, and the public sign-in routes where it has them).
"""

from flask import Flask

from workspace.identity import domains, enforced_sso, group_sync_pages, ldap, sso


def init_app(app: Flask) -> None:
    for subpackage in (domains, sso, ldap, group_sync_pages, enforced_sso):
        subpackage.init_app(app)
