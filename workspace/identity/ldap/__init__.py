"""LDAP / Active Directory sign-in (docs/ldap.md).

``models`` the org's one connection; ``filters`` RFC 4515 filter checks and escaping;
``directory`` the ldap3 protocol code; ``service`` save/read/test; ``signin`` the
login rules; ``directory_sync`` and ``sync_job`` the scheduled sync (its job and
schedule register when ``api`` imports it); ``api``, ``views`` (settings page) and
``signin_views`` (the public sign-in endpoint) the thin blueprints.
"""

from __future__ import annotations

from flask import Flask

from workspace.core.models import Org
from workspace.identity.ldap import api, signin_views, views
from workspace.identity.ldap.models import LdapConnection, connection_for
from workspace.identity.ldap.signin import find_signin_org

__all__ = ["LdapConnection", "init_app"]


def signin_org(ref: str | None) -> Org | None:
    """The org named in ``?org=`` when it offers directory sign-in, for the sign-in
    page; None otherwise."""
    org = find_signin_org(ref)
    return org if org is not None and connection_for(org.id) is not None else None


def init_app(app: Flask) -> None:
    """Register the API, the settings page and the public sign-in endpoint."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    signin_views.init_app(app)
    app.jinja_env.globals["ldap_signin_org"] = signin_org
