"""The command menu (Ctrl-K, docs/command_menu.md): one JSON endpoint that finds what
the caller may open, and the projects where they may create a task. The menu itself
is ``templates/_command_menu.html`` with ``static/js/command_menu.js``; registered by
the app factory's ``CAPABILITIES``, as it builds on the tracker's task search."""

from flask import Flask

from workspace.tracker.command_menu import api


def init_app(app: Flask) -> None:
    """Register the command menu's JSON API."""
    app.register_blueprint(api.bp)
