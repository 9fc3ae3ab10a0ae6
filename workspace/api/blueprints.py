"""JSON API blueprints declare their CSRF exemption where they are made."""

from __future__ import annotations

from flask import Blueprint

from workspace.extensions import csrf


def api_blueprint(name: str, import_name: str, url_prefix: str) -> Blueprint:
    """A blueprint of JSON API routes.

    Bearer-token APIs carry no ambient credential for a cross-site form to ride on (the
    API accepts a session cookie on safe methods only), so CSRF does not apply.
    """
    bp = Blueprint(name, import_name, url_prefix=url_prefix)
    csrf.exempt(bp)
    return bp
