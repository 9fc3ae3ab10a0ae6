"""Verified email domains, proven by a DNS TXT record (docs/domains.md)."""

from flask import Flask

from workspace.core.models.domains import DomainState, VerifiedDomain
from workspace.identity.domains import api, views

__all__ = ["DomainState", "VerifiedDomain", "init_app"]


def init_app(app: Flask) -> None:
    """Register the JSON API and the Domains settings page."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
