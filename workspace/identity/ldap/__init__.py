"""LDAP / Active Directory sign-in (spec §2.6, §4.1, §4.4; DESIGN §6).

``models`` the org's one connection; ``filters`` RFC 4515 filter checks and escaping;
``directory`` the ldap3 protocol code; ``service`` save/read/test; ``signin`` the
login rules; ``api``, ``pages`` and ``login`` the thin blueprints.
"""

from __future__ import annotations

from flask import Flask

from workspace.identity.ldap.models import LdapConnection, connection_for

__all__ = ["LdapConnection", "init_app"]


def signin_org(ref: str | None):
    """The org named in ``?org=`` when it offers directory sign-in, for the sign-in
    page; None otherwise."""
    from workspace.identity.ldap.signin import find_signin_org

    org = find_signin_org(ref)
    return org if org is not None and connection_for(org.id) is not None else None


def init_app(app: Flask) -> None:
    """Register the API, the settings page and the public sign-in endpoint."""
    from workspace.identity.ldap import api, login, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    login.init_app(app)
    app.jinja_env.globals["ldap_signin_org"] = signin_org
