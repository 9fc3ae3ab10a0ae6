"""Input that no view should have to think about, refused once for every route.

- NUL characters: PostgreSQL text and JSON cannot hold them, so an insert would fail
  deep inside a service as a 500. SQLite takes them, which is why only one backend
  would ever show the bug.
- JSON nested deeper than :data:`MAX_JSON_DEPTH`: Python's parser gives up with a
  ``RecursionError`` near a thousand levels, and no request of ours needs more than a
  handful.

Query strings are checked on every route. Bodies (form fields and JSON) are checked
on every route but those marked with :func:`reads_own_body`, which take care of their
own: SCIM and MCP (each answers in its own error format and calls :func:`load_json`),
and directory sign-in (a username with a NUL is a failed, audited login attempt, not a
malformed request).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Flask, current_app, request
from werkzeug.exceptions import BadRequest, HTTPException

#: Deepest JSON nesting accepted; SCIM PATCH values are the deepest we read (4).
MAX_JSON_DEPTH = 32

F = TypeVar("F", bound=Callable[..., Any])


class InputRefused(ValueError):
    """What is wrong with a payload, phrased for the person who sent it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RefusedRequest(BadRequest):
    """400 with the reason as its description and the input at fault as ``field``;
    the app's error handlers render it (problem+json names the field)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


_OWN_BODY_BLUEPRINTS: set[str] = set()


def reads_own_body(target: F | Blueprint) -> F | Blueprint:
    """Mark a view, or every view of a blueprint, that parses and checks its own
    body (see module docstring)."""
    if isinstance(target, Blueprint):
        _OWN_BODY_BLUEPRINTS.add(target.name)
    else:
        target._reads_own_body = True  # type: ignore[attr-defined]
    return target


def load_json(raw: str | bytes) -> Any:
    """``json.loads`` that turns runaway nesting into :class:`InputRefused` and leaves
    other malformed input to raise ``ValueError`` as usual."""
    try:
        data = json.loads(raw)
    except RecursionError as exc:
        raise InputRefused(_too_deep()) from exc
    check_json(data)
    return data


def check_json(data: Any) -> None:
    """Raise :class:`InputRefused` when parsed JSON nests too deeply or holds a NUL in
    any key or string. Walks iteratively so depth itself cannot overflow the stack."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise InputRefused(_nul(f"The field {path!r}" if path else "The body"), path)
        elif isinstance(value, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise InputRefused(_too_deep())
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and "\x00" in key:
                    raise InputRefused(_nul(f"A key in {path!r}" if path else "A key"), path)
                stack.append((item, f"{path}.{key}" if path else str(key), depth + 1))


def body_or_none() -> Any:
    """The request's JSON (when it says JSON) or form body, or None when it cannot be
    read: over ``MAX_CONTENT_LENGTH`` (413), nested past the parser's limit, not JSON.
    For code that must answer whatever the body, such as a rate limiter's key or its
    429 handler (docs/security.md#concurrency)."""
    try:
        return request.get_json(silent=True) if request.is_json else request.form
    except (RecursionError, HTTPException):
        return None


def _nul(where: str) -> str:
    return f"{where} contains a NUL character (\\u0000); remove it and send the request again."


def _too_deep() -> str:
    return f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep."


def _check_fields(fields: Any, what: str) -> None:
    for key, value in fields.items(multi=True):
        if "\x00" in key or "\x00" in value:
            name = key.replace("\x00", "")
            raise RefusedRequest(_nul(f"The {what} {name!r}"), name or None)


def _check_request() -> None:
    _check_fields(request.args, "query parameter")
    view = current_app.view_functions.get(request.endpoint or "")
    if request.blueprint in _OWN_BODY_BLUEPRINTS or getattr(view, "_reads_own_body", False):
        return
    _check_fields(request.form, "form field")
    if not request.is_json:
        return
    if not request.get_data(cache=True):
        return
    try:
        data = request.get_json(silent=True)
    except RecursionError as exc:
        raise RefusedRequest(_too_deep()) from exc
    if data is None:
        return  # malformed JSON: the view says so in its own words
    try:
        check_json(data)
    except InputRefused as exc:
        raise RefusedRequest(str(exc), exc.field) from exc


def init_app(app: Flask) -> None:
    app.before_request(_check_request)
