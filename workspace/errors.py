"""One place that turns failures into responses: problem+json under /api/, SCIM's
own error schema under /scim/ (that blueprint registers it), HTML pages elsewhere."""

from __future__ import annotations

import logging

from flask import Flask, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from workspace.api.problems import ApiError, from_http_exception, problem_response

log = logging.getLogger(__name__)


def _wants_problem_json() -> bool:
    return request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def handle_api_error(error: ApiError):
        return problem_response(error)

    @app.errorhandler(ServiceError)
    def handle_service_error(error: ServiceError):
        if _wants_problem_json():
            return problem_response(error.to_api_error())
        return render_template("error.html", code=error.status, message=error.message), error.status

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
        from workspace.extensions import db

        db.session.rollback()
        if _wants_problem_json():
            return problem_response(
                ApiError(500, "Something went wrong on our side.", title="Internal error")
            )
        return render_template("error.html", code=500, message=InternalServerError.description), 500


class ServiceError(Exception):
    """A request the service refuses for a reason the caller can fix.

    Service functions raise these; the API turns them into problem+json and the pages
    into readable messages. ``field`` names the input at fault, when there is one.
    """

    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_api_error(self) -> ApiError:
        errors = [{"field": self.field, "message": self.message}] if self.field else None
        return ApiError(self.status, self.message, errors=errors)


class NotFoundError(ServiceError):
    status = 404


class ConflictError(ServiceError):
    status = 409


class ForbiddenError(ServiceError):
    status = 403
