"""The project tracker people use: org home, projects and tasks, as JSON API and
HTML pages over the core services. ``search`` (the org task search) builds on the task
list here and registers itself (the app factory's CAPABILITIES)."""

from flask import Flask

from workspace.tracker import api, views
from workspace.tracker.project_members import views as project_members_views
from workspace.tracker.project_settings import api as project_settings_api
from workspace.tracker.project_settings import views as project_settings_views
from workspace.tracker.task_page import api as task_page_api
from workspace.tracker.task_page import views as task_page_views


def init_app(app: Flask) -> None:
    """Register the tracker's JSON API and pages."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(task_page_api.bp)
    app.register_blueprint(task_page_views.bp)
    app.register_blueprint(project_settings_api.bp)
    app.register_blueprint(project_settings_views.bp)
    app.register_blueprint(project_members_views.bp)
