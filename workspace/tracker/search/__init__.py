"""The org-wide task search: every project's tasks under one PQL filter, read-only
(where an org-wide analytics figure drills down to, docs/analytics.md)."""

from flask import Flask

from workspace.tracker.search import views


def init_app(app: Flask) -> None:
    """Register the org task search page."""
    app.register_blueprint(views.bp)
