"""PATCH (RFC 7644 §3.5.2) as real IdPs send it, applied by scim2-models.

Okta deactivates with ``{"op": "replace", "value": {"active": false}}`` (no path);
Entra capitalises ops (``"Replace"``), sends ``"False"`` for booleans, dotted keys
such as ``"name.givenName"`` in a path-less value, ``Add`` on
``emails[type eq "work"].value`` when no work email exists yet, and ``Remove``
operations carrying the value to remove. scim2-models accepts the first three as
they are; the last two are policy switches.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from scim2_models import (
    Context,
    InvalidSyntaxException,
    InvalidValueException,
    PatchOp,
    ScimPolicy,
)

from workspace.scim import errors
from workspace.scim.resources import USER_SCHEMA, InputUser

POLICY = ScimPolicy(
    unknown=ScimPolicy.Unknown.forbid,
    remove_value_as_filter=ScimPolicy.RemoveValue.apply,
    unmatched_path_filter=ScimPolicy.UnmatchedPathFilter.create,
)

_PATCH_OP = PatchOp[InputUser]


def parse(payload: Any) -> PatchOp:
    if not isinstance(payload, dict):
        raise InvalidSyntaxException(detail="A PATCH body is a PatchOp JSON object.")
    return _PATCH_OP.model_validate(
        payload, scim_ctx=Context.RESOURCE_PATCH_REQUEST, scim_policy=POLICY
    )


def apply(operations: PatchOp, document: InputUser) -> InputUser:
    """Apply every operation to ``document`` in place; all or nothing, since the
    caller stores the result only when every operation succeeded."""
    try:
        operations.patch(document, scim_policy=POLICY)
    except InvalidValueException as exc:
        # scim2-models puts pydantic's whole report (with its help URL) in the
        # detail; say it the way every other validation failure is said.
        if isinstance(exc.__cause__, ValidationError):
            raise errors.validation_error(exc.__cause__) from exc
        raise
    return document


#: What :func:`names_set` looks for, by lowercased path.
_NAME_PATHS = {"name.formatted": "formatted", "displayname": "displayName"}


def _path(raw: str) -> str:
    """A path or value key without the core schema's URN, lowercased (RFC 7644
    §3.10: attribute names are case-insensitive)."""
    lowered = raw.strip().lower()
    prefix = USER_SCHEMA.lower() + ":"
    return lowered[len(prefix) :] if lowered.startswith(prefix) else lowered


def names_set(operations: PatchOp) -> set[str]:
    """Which of ``formatted`` (``name.formatted``) and ``displayName`` the request
    itself sets or removes, in any of the forms IdPs send: a path, a path-less value
    with plain or dotted keys, or the ``name`` object (docs/scim.md#names)."""
    found: set[str] = set()
    for operation in operations.operations or []:
        targets: dict[str, object] = {}
        if operation.path:
            targets[_path(operation.path)] = operation.value
        elif isinstance(operation.value, dict):
            targets = {_path(k): v for k, v in operation.value.items()}
        for path, value in targets.items():
            if path in _NAME_PATHS:
                found.add(_NAME_PATHS[path])
            elif path == "name" and (
                not isinstance(value, dict) or "formatted" in {_path(k) for k in value}
            ):
                # The whole name replaced or removed, or its formatted part set.
                found.add("formatted")
    return found
