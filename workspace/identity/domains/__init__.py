"""Verified email domains, proven by a DNS TXT record (spec §2.1, §3.1)."""

from flask import Flask

from workspace.identity.domains.models import DomainState, VerifiedDomain

__all__ = ["DomainState", "VerifiedDomain", "init_app"]


def init_app(app: Flask) -> None:
    """Register this capability's blueprints."""
