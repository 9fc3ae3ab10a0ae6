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
from collections.abc import Callable, Collection
from json.decoder import scanstring
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from flask import Blueprint, Flask, current_app, request
from werkzeug.exceptions import BadRequest, HTTPException

#: Deepest JSON nesting accepted; SCIM PATCH values are the deepest we read (4).
MAX_JSON_DEPTH = 32
#: How much of a body that cannot be parsed :func:`peek_fields` reads.
PEEK_BYTES = 64 * 1024

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
    429 handler (docs/security.md#concurrency), which then turn to :func:`peek_fields`."""
    try:
        return request.get_json(silent=True) if request.is_json else request.form
    except (RecursionError, HTTPException):
        return None


def peek_fields(names: Collection[str]) -> dict[str, str]:
    """The top-level string fields ``names`` of a JSON object or urlencoded form that
    :func:`body_or_none` cannot read, taken from the body's first :data:`PEEK_BYTES`
    without parsing the rest. A rate limit keyed by a name in the body (directory
    sign-in) then sees that name whatever follows it: nesting past the parser's limit,
    more than ``MAX_CONTENT_LENGTH``. Never raises; what it cannot find is left out."""
    head, complete = _body_head()
    if request.is_json:
        found = _json_strings(head.decode("utf-8", "replace"))
    elif request.mimetype == "application/x-www-form-urlencoded":
        pairs = head.split(b"&")
        found = {
            key.decode("utf-8", "replace"): value.decode("utf-8", "replace")
            # Without the whole body the last pair may be cut short.
            for key, value in parse_qsl(b"&".join(pairs if complete else pairs[:-1]), True)
        }
    else:
        return {}
    return {key: value for key, value in found.items() if key in names}


def _body_head() -> tuple[bytes, bool]:
    """The body's first PEEK_BYTES, and whether that is all of it."""
    if "workspace.body_head" not in request.environ:
        try:
            data = request.get_data(cache=True)
            head, complete = data[:PEEK_BYTES], len(data) <= PEEK_BYTES
        except HTTPException:
            # Over MAX_CONTENT_LENGTH werkzeug reads none of it (413), so its start is
            # read here, never past the length declared; kept, as the stream moves on.
            declared = request.content_length or 0
            stream = request.environ.get("wsgi.input")
            try:
                head = stream.read(min(PEEK_BYTES, declared)) if stream and declared else b""
            except OSError:
                head = b""
            complete = len(head) >= declared
        request.environ["workspace.body_head"] = (head, complete)
    return request.environ["workspace.body_head"]


def _space(text: str, pos: int) -> int:
    """``pos`` moved past JSON whitespace."""
    while text[pos : pos + 1] in (" ", "\t", "\n", "\r"):
        pos += 1
    return pos


def _json_strings(text: str) -> dict[str, str]:
    """The members of the JSON object ``text`` begins with whose values are strings,
    read left to right as ``json.loads`` would (a later duplicate wins). Other values
    are skipped by counting brackets, so nesting costs nothing; reading stops quietly
    where the text ends or stops being JSON."""
    found: dict[str, str] = {}
    pos = _space(text, 0)
    if not text.startswith("{", pos):
        return found
    pos += 1
    try:
        while True:
            pos = _space(text, pos)
            if not text.startswith('"', pos):
                return found
            key, pos = scanstring(text, pos + 1)
            pos = _space(text, pos)
            if not text.startswith(":", pos):
                return found
            pos = _space(text, pos + 1)
            if text.startswith('"', pos):
                found[key], pos = scanstring(text, pos + 1)
            else:
                found.pop(key, None)
                pos = _skip_value(text, pos)
            pos = _space(text, pos)
            if not text.startswith(",", pos):
                return found
            pos += 1
    except ValueError:  # a string cut short, or not JSON
        return found


def _skip_value(text: str, pos: int) -> int:
    """Where the non-string JSON value at ``pos`` ends (or the text does)."""
    depth = 0
    while pos < len(text):
        char = text[pos]
        if char == '"':
            _, pos = scanstring(text, pos + 1)
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            if depth == 0:
                return pos
            depth -= 1
        elif char == "," and depth == 0:
            return pos
        pos += 1
    return pos


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
