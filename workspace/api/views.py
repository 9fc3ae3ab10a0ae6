"""Routes of the API itself: its OpenAPI document."""

from __future__ import annotations

from flask import Flask, current_app, jsonify

from workspace.api.blueprints import api_blueprint
from workspace.api.openapi import build_openapi

bp = api_blueprint("api", __name__, "/api/v1")


@bp.get("/openapi.json")
def openapi_document():
    """The OpenAPI 3.1 document generated from the declared operations."""
    if "openapi" not in current_app.extensions:
        current_app.extensions["openapi"] = build_openapi(current_app)
    return jsonify(current_app.extensions["openapi"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
