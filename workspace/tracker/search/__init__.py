"""Finding tasks: ranked full-text search (``/o/<org>/search`` and its JSON API,
docs/search.md) and the org-wide task list under one PQL filter, read-only (where an
org-wide analytics figure drills down to, docs/analytics.md)."""

from flask import Flask

from workspace.tracker.search import api, views


def init_app(app: Flask) -> None:
    """Register the search page, its JSON API and the org task list page."""
    app.register_blueprint(views.bp)
    app.register_blueprint(api.bp)
