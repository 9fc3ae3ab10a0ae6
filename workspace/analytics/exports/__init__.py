"""Exports that run as jobs (docs/jobs.md#pdf-export): a dashboard's PDF, started from
the page or the API and made by a worker; the synchronous ``export.pdf`` for scripts
that wait is the same job."""

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.analytics.exports import api, pdf_job, views  # noqa: F401  (pdf_job registers)

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
