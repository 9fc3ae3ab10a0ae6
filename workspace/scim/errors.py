"""Every SCIM failure in one shape: the Error message of RFC 7644 §3.12
(``urn:ietf:params:scim:api:messages:2.0:Error``, status as a string, scimType),
served as ``application/scim+json``, including for 401, 404, 405 and 413."""

from __future__ import annotations

import json
import logging

from flask import Blueprint, Flask, Response, request
from pydantic import ValidationError
from scim2_models import Context, Error, InvalidValueException, SCIMException
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/scim+json"


def error_response(status: int, detail: str, scim_type: str | None = None) -> Response:
    body = Error(status=status, scim_type=scim_type, detail=detail)
    response = Response(
        json.dumps(body.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)),
        status=status,
        mimetype=MEDIA_TYPE,
    )
    if status == 401:
        # RFC 7644 §2: the bearer scheme of RFC 6750.
        response.headers["WWW-Authenticate"] = 'Bearer realm="SCIM"'
    return response


def validation_error(exc: ValidationError) -> SCIMException:
    """The first complaint of a payload validation, as the SCIM error it stands for
    (RFC 7644 §3.12 Table 9: invalidSyntax for structure, invalidValue for values)."""
    error = Error.from_validation_errors(exc)[0]
    return SCIMException.from_error(error)


_HTTP_DETAILS = {
    401: "Send the org's SCIM token as 'Authorization: Bearer scim_...'.",
    404: "No such resource or endpoint. SCIM endpoints live under "
    "/scim/v2/orgs/<org id>/ (Users, Groups, ServiceProviderConfig, ResourceTypes, Schemas).",
    405: "This endpoint does not accept that HTTP method.",
}


def _from_http(error: HTTPException) -> Response:
    code = error.code or 500
    if code == 413:
        return too_large()
    response = error_response(code, _HTTP_DETAILS.get(code, error.description or error.name))
    if code == 405 and error.valid_methods:
        response.headers["Allow"] = ", ".join(error.valid_methods)
    return response


#: Bodies above this are refused with a SCIM 400 before parsing; one User is a few
#: hundred bytes, an Entra user with every attribute a few KB.
MAX_BODY = 64 * 1024


class TooLarge(InvalidValueException):
    """The issue asks for a 400 rather than RFC 7644's 413: a body this size is a
    malformed request for one user, not a payload to retry smaller."""

    def __init__(self) -> None:
        super().__init__(
            detail=f"The request body is larger than {MAX_BODY // 1024} KB; a SCIM "
            "request for one user needs far less."
        )


def too_large() -> Response:
    error = TooLarge().to_error()
    return error_response(400, error.detail or "", error.scim_type)


def install(bp: Blueprint) -> None:
    """The blueprint's handlers; called once, where the blueprint is defined."""

    @bp.errorhandler(SCIMException)
    def handle_scim(exc: SCIMException):
        error = exc.to_error()
        return error_response(int(error.status or 400), error.detail or str(exc), error.scim_type)

    @bp.errorhandler(ValidationError)
    def handle_validation(exc: ValidationError):
        return handle_scim(validation_error(exc))

    @bp.errorhandler(HTTPException)
    def handle_http(exc: HTTPException):
        return _from_http(exc)

    @bp.errorhandler(Exception)
    def handle_unexpected(exc: Exception):
        log.exception("unhandled SCIM error on %s %s", request.method, request.path)
        return error_response(500, "Something went wrong on our side.")


def init_app(app: Flask) -> None:
    @app.after_request
    def scim_shaped_errors(response: Response) -> Response:
        # Routing failures (unknown path, wrong method) happen before any blueprint
        # is chosen, so the blueprint handlers above never see them and the app's
        # handler leaves them unformatted for /scim/ paths. Reshape them here,
        # touching nothing outside /scim/.
        if (
            request.path.startswith("/scim/")
            # The OAuth token endpoint answers RFC 6749 §5.2 errors, which clients parse.
            and request.blueprint != "scim_oauth"
            and response.status_code >= 400
            and response.mimetype != MEDIA_TYPE
        ):
            code = response.status_code
            if code == 413:
                return too_large()
            shaped = error_response(code, _HTTP_DETAILS.get(code, response.status))
            if "Allow" in response.headers:
                shaped.headers["Allow"] = response.headers["Allow"]
            return shaped
        return response
