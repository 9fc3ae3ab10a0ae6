"""A JSON body's texts checked as they were sent, against the document's
``maxLength``, ``pattern`` and formats, before the input model strips or reads them
(:func:`workspace.inputs.validate`'s ``as_sent``): the model strips whitespace first,
and Python reads an id or a date in more spellings than the document allows."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel


def too_long(limit: int, text: str) -> str:
    """What a person reads when a text is over its limit: the limit and how far over."""
    return f"Enter at most {limit} characters (this has {len(text)})."


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


def not_as_sent(model: type[BaseModel], data: Any) -> list[dict[str, str]]:
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
