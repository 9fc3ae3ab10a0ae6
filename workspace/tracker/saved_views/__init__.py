"""Saved views of a project's list or board (docs/saved_views.md): the model, the
service, the JSON API and the project page's forms. Registered by the app factory's
CAPABILITIES; the project page (``tracker/views.py``) lists them in its tabs through
the hook registered here, so the tracker never imports this package."""

from __future__ import annotations

from flask import Flask

from workspace.tracker.saved_views import models

__all__ = ["models"]


def init_app(app: Flask) -> None:
    """Register the API, the page forms and the project page's hook."""
    from workspace.tracker import views as tracker_views
    from workspace.tracker.saved_views import api, views

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    # The project page lists the views and opens ``?view=<id>`` through this hook.
    app.extensions.setdefault(tracker_views.PAGE_HOOKS, []).append(views.project_page_hook)
