"""One input path: every request body, query string and HTML form is validated by a
pydantic input model, so a field has one length limit and one message wherever it is
typed (JSON API, HTML form, agent tool).

    class ProjectCreate(InputModel):
        name: str = Field(min_length=1, max_length=200)

    body = parse_body(ProjectCreate)   # JSON API: 400 problem+json naming each field
    form = parse_form(ProjectCreate)   # HTML form: field_errors(exc) beside each field

Too long is an error shown on the field, never a silent cut. This module sits in the
base layer so core schemas, the API and every capability share it.
"""

from __future__ import annotations

import functools
import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from flask import request
from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
)
from werkzeug.datastructures import MultiDict

from workspace.errors import FieldsRefused, InputError, ServiceError, UnsupportedMediaError

# Re-exported: models import what the document says of a field from here.
from workspace.inputs.document import NOT_BLANK as NOT_BLANK
from workspace.inputs.document import _needed
from workspace.inputs.document import absent as absent
from workspace.inputs.document import needed as needed


def _is_boolean(annotation: Any) -> bool:
    """``bool`` or ``bool | None``."""
    if annotation is bool:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args == [bool]
    return False


@functools.cache
def boolean_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of ``model`` typed ``bool`` (or ``bool | None``)."""
    return frozenset(
        name for name, info in model.model_fields.items() if _is_boolean(info.annotation)
    )


class InputModel(BaseModel):
    """Request bodies and query strings: unknown fields are an error, not a shrug.

    A JSON body is read with JSON's types, as the OpenAPI document says them
    (:func:`validate`): a boolean is ``true`` or ``false``, not ``0`` or ``"yes"``; a date
    is text, not ``0``. HTML forms and query strings send text, which the model
    converts; :func:`parse_form` turns a checkbox's spellings into booleans first.
    No field validator may run before a field's own (``mode="before"`` or ``"wrap"`` on
    a date, id or enum): pydantic then reads the JSON value as Python's, and strict
    Python takes no text for a date.
    """

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> Any:
        """The document's ``required`` also names the fields :func:`needed` marks."""
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        names = [
            info.alias or name
            for name, info in cls.model_fields.items()
            if info.json_schema_extra is _needed
        ]
        required = target.setdefault("required", [])
        required.extend(name for name in names if name not in required)
        if not required:
            target.pop("required")
        return schema


class QueryModel(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class OutputModel(BaseModel):
    model_config = ConfigDict(from_attributes=True)


M = TypeVar("M", bound=BaseModel)


def validation_errors(exc: ValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(part) for part in err["loc"]) or "body"
        out.append({"field": loc, "message": _in_words(err)})
    return out


def _in_words(err: Any) -> str:
    """pydantic's message, or for the refusals people meet most in a form, what to
    enter instead ("Enter 23 or less." for "Input should be less than or equal to 23")."""
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "string_too_long" and isinstance(err.get("input"), str):
        return too_long(ctx["max_length"], err["input"])
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return "Enter a whole number."
    if kind in ("float_parsing", "float_type"):
        return "Enter a number."
    if kind == "too_short" and isinstance(err.get("input"), list):
        return f"Choose at least {ctx['min_length']}."
    if kind == "missing":
        return "This field is required."
    if kind == "string_too_short" and isinstance(err.get("input"), str):
        least = ctx.get("min_length", 1)
        return "This cannot be blank." if least <= 1 else f"Enter at least {least} characters."
    if kind == "finite_number":
        return "Enter a finite number."
    if kind.startswith("date_"):
        return "Enter a date as YYYY-MM-DD, such as 2026-11-29."
    if kind.startswith("datetime_"):
        return "Enter a date and time such as 2026-11-29T14:05:00Z."
    if kind == "value_error" and ctx.get("error") is not None:
        return str(ctx["error"])  # a validator's own words, without "Value error, "
    bound = ctx.get("le", ctx.get("ge"))
    if kind in ("less_than_equal", "greater_than_equal") and isinstance(bound, int | float):
        # 1e12 reads "1,000,000,000,000", not "1000000000000.0".
        shown = f"{bound:,.0f}" if float(bound).is_integer() else f"{bound:,}"
        return f"Enter {shown} or {'less' if kind == 'less_than_equal' else 'more'}."
    return err["msg"]


def too_long(limit: int, text: str) -> str:
    """What a person reads when a text is over its limit: the limit and how far over."""
    return f"Enter at most {limit} characters (this has {len(text)})."


def parse_body(model: type[M]) -> M:
    if not request.mimetype or not request.is_json:
        raise UnsupportedMediaError(
            "Send the request body as JSON with 'Content-Type: application/json'."
        )
    data = request.get_json(silent=True)
    # Input errors, not a service's: 400 wherever parse_body is called (a view that
    # reads its body itself, too), never the 422 of a refusal on the request's meaning.
    if data is None:
        # A JSON null parses to None too: that body is JSON, just not an object.
        if request.get_data().strip() == b"null":
            raise _body_error("The request body must be a JSON object, not null.")
        raise _body_error("The request body is not valid JSON.")
    if not isinstance(data, dict):
        raise _body_error("The request body must be a JSON object.")
    return validate(
        model, data, "Some fields are missing or invalid.", json_types=True, as_sent=True
    )


def _body_error(message: str) -> InputError:
    return InputError(message, [{"field": "body", "message": message}])


def validate(
    model: type[M], data: Any, message: str, *, json_types: bool = False, as_sent: bool = False
) -> M:
    """``model`` from ``data``, or an :class:`InputError` naming each field at fault.

    ``json_types``: ``data`` is a JSON body, read with the document's types (pydantic's
    strict JSON mode): ``0`` is no date and ``"5"`` no integer, while ``5.0`` is the
    integer 5, as JSON Schema counts it. Otherwise the values are a form's or a query
    string's text, which the model converts, but a boolean field still takes only a
    boolean (:func:`parse_form` and :func:`parse_query` turn the checkbox's spellings
    into one first).

    ``as_sent``: a text is checked as it was sent against the document's
    ``maxLength``, ``pattern`` and id format (the model strips whitespace first, and
    Python reads an id in more spellings than the document's); an HTML form's padding
    is forgiven.
    """
    errors = [] if json_types else _not_booleans(model, data)
    if as_sent:
        errors += _not_as_sent(model, data)
    try:
        if json_types:
            result = model.model_validate_json(json.dumps(_whole_numbers(data)), strict=True)
        else:
            result = model.model_validate(data)
    except ValidationError as exc:
        named = {e["field"] for e in errors}
        errors += [e for e in validation_errors(exc) if e["field"] not in named]
    if errors:
        raise InputError(message, errors)
    return result


def _not_booleans(model: type[BaseModel], data: Any) -> list[dict[str, str]]:
    """A boolean field given anything but a boolean (or null): pydantic alone would
    take ``1`` or ``"yes"``."""
    if not isinstance(data, Mapping):
        return []
    errors = []
    for name in boolean_fields(model):
        key = model.model_fields[name].alias or name
        value = data.get(key)
        if value is not None and not isinstance(value, bool):
            errors.append({"field": key, "message": "Input should be true or false"})
    return errors


#: The one spelling of an id the document's ``"format": "uuid"`` takes (Python's UUID
#: also reads braces, ``urn:uuid:`` and 32 bare hex digits).
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: The spellings of ``"format": "date"`` and ``"date-time"`` (RFC 3339); pydantic also
#: reads ``"0"`` as 1970-01-01.
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_FORMATS = {
    "uuid": (_UUID, "Input should be a valid UUID, such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427"),
    "date": (re.compile(_DATE), "Input should be a date like 2026-03-01"),
    "date-time": (
        re.compile(
            _DATE + r"[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
        ),
        "Input should be a time like 2026-03-01T00:00:00Z (with Z or an offset)",
    ),
}


@functools.cache
def _texts(model: type[BaseModel]) -> dict[str, tuple[dict[str, Any], bool]]:
    """Each text field's schema in the document, and whether the field is a list of
    such texts."""
    texts = {}
    for name, prop in model.model_json_schema(mode="validation").get("properties", {}).items():
        for option in prop.get("anyOf", [prop]):
            if option.get("type") == "string":
                texts[name] = (option, False)
            elif option.get("type") == "array" and option.get("items", {}).get("type") == "string":
                texts[name] = (option["items"], True)
    return texts


def _breaks(rule: dict[str, Any], text: str) -> str | None:
    """What the text, as sent, breaks of its schema's length, pattern and format."""
    if "maxLength" in rule and len(text) > rule["maxLength"]:
        return too_long(rule["maxLength"], text)
    if "pattern" in rule and not re.search(rule["pattern"], text):
        return f"String should match pattern '{rule['pattern']}'"
    spelling, message = _FORMATS.get(rule.get("format", ""), (None, ""))
    if spelling is not None and not spelling.fullmatch(text):
        return message
    return None


def _not_as_sent(model: type[BaseModel], data: Any) -> list[dict[str, str]]:
    """The texts that break the document as sent, before the model strips them."""
    if not isinstance(data, Mapping):
        return []
    errors = []
    for name, (rule, many) in _texts(model).items():
        value = data.get(name)
        texts = value if many and isinstance(value, list) else [value]
        for index, text in enumerate(texts):
            problem = _breaks(rule, text) if isinstance(text, str) else None
            if problem:
                errors.append({"field": f"{name}.{index}" if many else name, "message": problem})
                break
    return errors


def _whole_numbers(data: Any) -> Any:
    """``2.0`` as ``2``: one JSON number, an integer to JSON Schema (strict pydantic
    would refuse it for an ``int``)."""
    if isinstance(data, float) and data.is_integer():
        return int(data)
    if isinstance(data, dict):
        return {key: _whole_numbers(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_whole_numbers(value) for value in data]
    return data


#: What an HTML form sends for a ticked or unticked box (``with_checkboxes`` adds "false").
_FORM_BOOLEANS = {"true": True, "on": True, "1": True, "yes": True}
_FORM_BOOLEANS |= {"false": False, "off": False, "0": False, "no": False}


def _form_booleans(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """A form's checkbox spellings as booleans; anything else is left for the model to
    refuse."""
    for name in boolean_fields(model):
        info = model.model_fields[name]
        key = info.alias or name
        value = data.get(key)
        if isinstance(value, str) and value.strip().lower() in _FORM_BOOLEANS:
            data[key] = _FORM_BOOLEANS[value.strip().lower()]
    return data


def _from_multidict(model: type[BaseModel], values: MultiDict, *, blank_is_absent: bool) -> dict:
    data: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        found = values.getlist(key)
        if blank_is_absent:
            found = [v for v in found if v.strip()]
        if not found:
            continue
        data[key] = found if _is_list(info.annotation) else found[-1]
    return data


def _is_list(annotation: Any) -> bool:
    return str(annotation).startswith(("list", "typing.List"))


def parse_form(model: type[M], form: Mapping[str, Any] | None = None) -> M:
    """An HTML form through the same input model as the JSON API.

    Keys the model does not name (the CSRF token, a submit button) are ignored; a blank
    field counts as not given, so an optional one takes its default and a required one
    is reported missing.
    """
    values = form if form is not None else request.form
    if not isinstance(values, MultiDict):
        values = MultiDict(values)
    data = _form_booleans(model, _from_multidict(model, values, blank_is_absent=True))
    for name, info in model.model_fields.items():
        # A form sends nothing for a list of checkboxes none of which is ticked: a
        # required list is then empty, which its service refuses in its own words.
        key = info.alias or name
        if info.is_required() and key not in data and _is_list(info.annotation):
            data[key] = []
    return validate(model, data, "Some fields need your attention.")


def parse_query(model: type[M]) -> M:
    """The query string through its model (repeated keys for list fields)."""
    data = _form_booleans(model, _from_multidict(model, request.args, blank_is_absent=False))
    return validate(model, data, "Some query parameters are invalid.", as_sent=True)


#: The key for a message that belongs to no single field (shown above the form).
FORM = "form"


def field_errors(exc: ServiceError) -> dict[str, str]:
    """One message per field: every field the input model refused, or the one field
    the service named (``form`` when it named none). ``project_ids.0`` is shown by the
    ``project_ids`` field."""
    if isinstance(exc, FieldsRefused):
        out: dict[str, str] = {}
        for name, message in exc.by_field.items():
            out.setdefault(name.split(".")[0], message)
        return out
    return {exc.field or FORM: exc.message}


def first_error(exc: ServiceError) -> str:
    """The one message a single-line form (the Ask box) shows."""
    return next(iter(field_errors(exc).values()))


def with_checkboxes(form: MultiDict, *names: str) -> MultiDict:
    """``form`` with each named checkbox present: a browser sends nothing for an
    unticked box, which the input model would otherwise read as its default."""
    values = MultiDict(form)
    for name in names:
        if not any(v.strip() for v in values.getlist(name)):
            values.setlist(name, ["false"])
    return values


def fit_external(text: str, size: int) -> str:
    """Text from outside (an IdP claim, a directory attribute, a model provider's
    answer) fitted to what we store or show: no NUL (PostgreSQL text holds none) and at
    most ``size`` characters. Deliberately cut, because no person typed it here; what a
    person types is refused when too long instead."""
    return text.replace("\x00", "\ufffd")[:size]
