"""Verified email domains, proven by a DNS TXT record (spec §2.1, §3.1)."""

from flask import Flask

from workspace.identity.domains.models import DomainState, VerifiedDomain

__all__ = ["DomainState", "VerifiedDomain", "init_app"]


def init_app(app: Flask) -> None:
    """Register the API blueprint; the page routes join ``identity_pages``."""
    from workspace.identity.domains import api, views  # noqa: F401  (views adds routes)

    app.register_blueprint(api.bp)
