"""Placeholder until this capability lands; see the open issues."""

from flask import Flask


def init_app(app: Flask) -> None:
    """Register this capability's blueprints."""
