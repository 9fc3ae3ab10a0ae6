"""The one place that turns failures into responses: problem+json under /api/, SCIM's
own error schema under /scim/ (that blueprint registers it), HTML pages elsewhere."""

from __future__ import annotations

import logging

from flask import Flask, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from workspace.api.problems import ApiError, from_http_exception, problem_response
from workspace.errors import FieldsRefused, ServiceError
from workspace.extensions import db
from workspace.inputs import field_errors

log = logging.getLogger(__name__)


def _wants_problem_json() -> bool:
    return request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def handle_api_error(error: ApiError):
        return problem_response(error)

    @app.errorhandler(ServiceError)
    def handle_service_error(error: ServiceError):
        # A busy database (503) is worth another try in a moment; a refusal that knows
        # when to come back (a PDF export slot, 429) says so itself.
        retry_after = error.retry_after or (1 if error.status == 503 else None)
        headers = {"Retry-After": str(retry_after)} if retry_after else {}
        if _wants_problem_json():
            problem = error.to_problem()
            response = problem_response(
                ApiError(problem["status"], problem["detail"], errors=problem["errors"])
            )
            response.headers.update(headers)
            return response
        # A request the input model refused names each field and what to send instead,
        # as the API's problem body does (a query string has no form to show them by).
        fields = field_errors(error) if isinstance(error, FieldsRefused) else {}
        page = render_template(
            "error.html", code=error.status, message=error.message, fields=fields
        )
        return page, error.status, headers

    @app.errorhandler(CSRFError)
    def handle_csrf(error: CSRFError):
        message = "Your form expired or came from another site. Reload the page and try again."
        if _wants_problem_json():
            return problem_response(ApiError(400, message))
        return render_template("error.html", code=400, message=message), 400

    @app.errorhandler(HTTPException)
    def handle_http(error: HTTPException):
        if _wants_problem_json():
            return problem_response(from_http_exception(error))
        if request.path.startswith("/scim/"):
            return error
        response = error.get_response()
        response.data = render_template("error.html", code=error.code, message=error.description)
        response.content_type = "text/html; charset=utf-8"
        return response

    @app.errorhandler(Exception)
    def handle_unexpected(error: Exception):
        # Log the traceback server-side; the client gets no internals.
        log.exception("unhandled error on %s %s", request.method, request.path)
        # A failed statement leaves PostgreSQL's transaction aborted; the error page
        # itself queries (the org switcher), so start clean.
        db.session.rollback()
        if _wants_problem_json():
            return problem_response(
                ApiError(500, "Something went wrong on our side.", title="Internal error")
            )
        return render_template("error.html", code=500, message=InternalServerError.description), 500
