"""RFC 9457 problem details for every JSON API failure (docs/api.md#errors)."""

from __future__ import annotations

from typing import Any

from flask import Response, json
from werkzeug.exceptions import HTTPException

from workspace.errors import ServiceError

PROBLEM_TYPE = "application/problem+json"

_TITLES = {
    400: "Bad request",
    401: "Authentication required",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Request too large",
    415: "Unsupported media type",
    422: "Unprocessable request",
    429: "Too many requests",
}


class ApiError(Exception):
    """A failure the client can fix; becomes a problem+json response."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        errors: list[dict[str, str]] | None = None,
        title: str | None = None,
        type_: str = "about:blank",
        allow: list[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.title = title or _TITLES.get(status, "Error")
        self.type = type_
        #: A 405's methods the URL does answer (RFC 9110: the ``Allow`` header is required).
        self.allow = allow
        #: Members the problem type adds to the standard ones (RFC 9457 §3.2).
        self.extra = extra or {}


def problem_response(error: ApiError) -> Response:
    body: dict[str, Any] = {
        "type": error.type,
        "title": error.title,
        "status": error.status,
        "detail": error.detail,
    }
    if error.errors:
        body["errors"] = error.errors
    body.update(error.extra)
    response = Response(json.dumps(body), status=error.status, mimetype=PROBLEM_TYPE)
    if error.status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="workspace"'
    if error.allow:
        response.headers["Allow"] = ", ".join(error.allow)
    return response


def service_problem(error: ServiceError) -> Response:
    """A service's refusal as problem+json, with the members its ``to_problem`` says."""
    return problem_response(ApiError(**error.to_problem()))


def from_http_exception(exc: HTTPException) -> ApiError:
    code = exc.code or 500
    detail = exc.description or _TITLES.get(code, "Error")
    if code == 404 and detail.startswith("The requested URL was not found"):
        detail = "Nothing exists at this address, or you cannot see it."
    if code == 413:
        detail = "The request body is larger than the 1 MiB this API accepts."
    field = getattr(exc, "field", None)  # set by input checks that know the culprit
    errors = [{"field": field, "message": detail}] if field else None
    allow = sorted(getattr(exc, "valid_methods", None) or []) if code == 405 else None
    return ApiError(code, detail, errors=errors, allow=allow)
