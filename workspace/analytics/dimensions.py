"""The dimensions a pivot or a custom chart groups by, and their readable labels.

Keys are stable strings: a state's name for ``status`` (states of different projects
sharing a name are one key), the enum value for ``priority`` and ``kind``, the
account or project id for ``assignee`` and ``project``; tasks without an assignee
fall under ``unassigned``.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from workspace.core.models import Account, Priority, Project, State, Task, TaskKind
from workspace.extensions import db

UNASSIGNED = "unassigned"

_ENUM_ORDER = {
    "priority": [p.value for p in Priority],
    "kind": [k.value for k in TaskKind],
}


def column(dimension: str) -> Any:
    """The SQL expression grouped on; ``status`` needs the states join."""
    return {
        "status": State.name,
        "priority": Task.priority,
        "kind": Task.kind,
        "assignee": Task.assignee_id,
        "project": Task.project_id,
    }[dimension]


def needs_states(*dimensions: str) -> bool:
    return "status" in dimensions


def key_of(value: Any) -> str:
    if value is None:
        return UNASSIGNED
    return str(value)


def labels(dimension: str, keys: Iterable[str]) -> dict[str, str]:
    """Readable labels for keys: names for accounts and projects."""
    keys = list(keys)
    found: dict[str, str] = {}
    ids = (
        [uuid.UUID(k) for k in keys if k != UNASSIGNED]
        if dimension in ("assignee", "project")
        else []
    )
    if dimension == "assignee" and ids:
        people = db.session.execute(
            select(Account.id, Account.name, Account.email).where(Account.id.in_(ids))
        ).all()
        # Two people of one name stay two keys, and their labels tell them apart.
        taken = Counter(name for _, name, _ in people)
        found = {
            str(i): name if taken[name] == 1 else f"{name} <{email}>" for i, name, email in people
        }
    elif dimension == "project" and ids:
        found = {
            str(i): name
            for i, name in db.session.execute(
                select(Project.id, Project.name).where(Project.id.in_(ids))
            )
        }
    out = {k: found.get(k, k) for k in keys}
    if UNASSIGNED in out:
        out[UNASSIGNED] = "Unassigned"
    return out


def ordered(dimension: str, keys: Iterable[str], names: dict[str, str]) -> list[str]:
    """Workflow order for enums; otherwise by label, with unassigned last."""
    keys = set(keys)
    if dimension in _ENUM_ORDER:
        order = _ENUM_ORDER[dimension]
        return sorted(keys, key=lambda k: (order.index(k) if k in order else len(order), k))
    return sorted(keys, key=lambda k: (k == UNASSIGNED, names.get(k, k).lower(), k))
