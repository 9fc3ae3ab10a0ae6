"""The errors service functions raise: a request the service refuses for a reason the
caller can fix. The request layer turns them into problem+json under ``/api/`` and
readable pages elsewhere (:mod:`workspace.error_handlers`)."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the service refuses for a reason the caller can fix.

    Service functions raise these; the API turns them into problem+json and the pages
    into readable messages. ``field`` names the input at fault, when there is one.
    """

    status = 400
    #: Seconds after which the same request may succeed: sent as ``Retry-After``
    #: (a 503 without one says 1).
    retry_after: int | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_problem(self) -> dict:
        """The fields a problem+json answer needs."""
        errors = [{"field": self.field, "message": self.message}] if self.field else None
        return {"status": self.status, "detail": self.message, "errors": errors}


class NotFoundError(ServiceError):
    status = 404


class ConflictError(ServiceError):
    status = 409


class ForbiddenError(ServiceError):
    status = 403


class BusyError(ServiceError):
    """The database kept refusing the request's writes as conflicting with others'
    (a deadlock or serialization failure, retried in vain): nothing was saved."""

    status = 503


class UnsupportedMediaError(ServiceError):
    status = 415


class InputError(ServiceError):
    """Input that fails its input model: a message per field, for the API's ``errors``
    list and for the form that shows each beside its field."""

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message, field=errors[0]["field"] if len(errors) == 1 else None)
        self.errors = errors

    @property
    def by_field(self) -> dict[str, str]:
        """The first message for each field, keyed by the field's name."""
        out: dict[str, str] = {}
        for err in self.errors:
            out.setdefault(err["field"], err["message"])
        return out

    def to_problem(self) -> dict:
        return {"status": self.status, "detail": self.message, "errors": self.errors}
