"""What the OpenAPI document says of an input field beyond its type: required or not
blank where the model lets the value through for its service to refuse in its own words
(``needed``, ``NOT_BLANK``), optional but not nullable (``absent``). Used when the models
are defined and the document is drawn, never while a request is served."""

from __future__ import annotations

from typing import Any

from pydantic import Field


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _not_blank(schema: dict[str, Any]) -> None:
    key = "minItems" if schema.get("type") == "array" else "minLength"
    schema[key] = max(1, schema.get(key, 0))


class _NotBlank:
    """``Annotated[str, NOT_BLANK]``: a text its service refuses blank in its own words
    (the form shows them beside the field). The model lets ``""`` through so that the
    service can say what to enter; the document says it is refused (``minLength`` 1,
    to which the generator adds the pattern that wants something besides spaces). On
    a list, the same for an empty one (``minItems`` 1)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> Any:
        schema = handler(core_schema)
        _not_blank(schema)
        return schema


NOT_BLANK = _NotBlank()


def _needed(schema: dict[str, Any]) -> None:
    _no_default(schema)
    _not_blank(schema)


def needed(**constraints: Any) -> Any:
    """A text field its service requires, refusing it absent or blank in its own words
    (``domain: str = needed(max_length=400)``). The model takes it absent (as ``""``)
    so that the service can say what to enter; the document says what is taken:
    required, and not blank."""
    return Field(default="", json_schema_extra=_needed, **constraints)


def absent() -> Any:
    """The default of a PATCH field that may be left out (unchanged) but not set to
    null: ``title: Title = absent()``. The field's type has no ``None``, so an explicit
    null is refused by the model (400 on the field), and the OpenAPI document says the
    field is optional and not nullable. A field that null clears is ``X | None = None``.
    """
    return Field(default=None, json_schema_extra=_no_default)
