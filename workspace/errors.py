"""The errors service functions raise: a request the service refuses for a reason the
caller can fix. The request layer turns them into problem+json under ``/api/`` and
readable pages elsewhere (:mod:`workspace.error_handlers`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


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


class FieldsRefused(ServiceError):
    """A refusal naming several fields, each with its message: for the API's
    ``errors`` list and for the form that shows each beside its field."""

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


class InputError(FieldsRefused):
    """Input that fails its input model (a 400 on the API, where a service's refusal
    of what the model took is a 422)."""


class FieldChecks:
    """A form's checks, run to the end so that one refusal names every field at fault:
    a person who got two fields wrong learns both from one submit, not the second
    after fixing the first. ``check`` runs one check and returns its value (None when
    it refused); ``fail`` records one written inline; ``refuse`` then raises the one
    refusal as it was, or several as one :class:`FieldsRefused`. A refusal of no field,
    or a 404 or 409, is not a field to fix beside others: it is raised at once."""

    MESSAGE = "Some fields are missing or invalid."

    def __init__(self) -> None:
        self.refusals: list[ServiceError] = []

    def check(self, run: Callable[[], T]) -> T | None:
        try:
            return run()
        except ServiceError as exc:
            if exc.field is None or type(exc) not in (ServiceError, FieldsRefused):
                raise
            self.refusals.append(exc)
            return None

    def fail(self, message: str, field: str) -> None:
        """A check written inline: ``field`` is at fault."""
        self.refusals.append(ServiceError(message, field=field))

    def failed(self, field: str) -> bool:
        """Whether ``field`` was refused already (a later check of it would only
        repeat the complaint)."""
        return any(r.field == field for r in self.refusals)

    def refuse(self) -> None:
        if len(self.refusals) == 1:
            raise self.refusals[0]
        if self.refusals:
            errors = [e for r in self.refusals for e in _errors_of(r)]
            raise FieldsRefused(self.MESSAGE, errors)


def _errors_of(error: ServiceError) -> list[dict[str, str]]:
    if isinstance(error, FieldsRefused):
        return error.errors
    return [{"field": error.field or "body", "message": error.message}]
