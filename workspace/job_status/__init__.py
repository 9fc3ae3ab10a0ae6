"""Where a person follows a job they started (docs/jobs.md#following-a-job): its state
and progress, as a page that HTMX refreshes and as JSON, and the file it made."""

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.job_status import api, views

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
