"""The dimensions a pivot or a custom chart groups by, and their readable labels.

Keys are stable strings: a state's name for ``status`` (states of different projects
sharing a name are one key), the enum value for ``priority`` and ``kind``, the
account or project id for ``assignee`` and ``project``; tasks without an assignee
fall under ``unassigned``. Two people of one name are labelled with their name and
short email ("Alex Kim (alex.k@)", :func:`palette.person_labels`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from workspace.analytics import palette
from workspace.analytics.scope import grouped
from workspace.core.models import Account, OrgMember, Priority, Project, State, Task, TaskKind
from workspace.extensions import db

UNASSIGNED = "unassigned"

_ENUM_ORDER = {
    "priority": [p.value for p in Priority],
    "kind": [k.value for k in TaskKind],
}


def column(dimension: str) -> Any:
    """The SQL expression grouped on; ``status`` needs the states join. Ids are
    wrapped in :class:`scope.grouped`, so SQLite never walks their own index over
    every org's rows to save the sort."""
    return {
        "status": State.name,
        "priority": Task.priority,
        "kind": Task.kind,
        "assignee": grouped(Task.assignee_id),
        "project": grouped(Task.project_id),
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
        found = {str(i): text for i, text in palette.person_labels(people).items()}
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


def category_by_name(pairs: Iterable[tuple[str, str, int]]) -> dict[str, str]:
    """``{state name: category}`` from ``(name, category, weight)``: states of
    different projects sharing a name are one key, drawn in the category most of
    their weight (tasks, or states) is in; ties go to the earlier category."""
    weights: dict[str, Counter[str]] = {}
    for name, category, weight in pairs:
        weights.setdefault(name, Counter())[str(category)] += weight
    order = list(palette.CATEGORIES)
    return {
        name: min(c, key=lambda cat: (-c[cat], order.index(cat) if cat in order else 99))
        for name, c in weights.items()
    }


def possible(org_id: uuid.UUID, dimension: str) -> dict[str, str]:
    """``{key: label}`` of every row a grouping by ``dimension`` may show in the org
    now: each priority and kind, each state name, each project, each member (and
    Unassigned), in the order a table lists them. What a person may name as one
    category (an alert's)."""
    if dimension in _ENUM_ORDER:
        return {key: key for key in _ENUM_ORDER[dimension]}
    found = _possible_named(org_id, dimension)
    return {key: found[key] for key in ordered(dimension, found, found)}


def _possible_named(org_id: uuid.UUID, dimension: str) -> dict[str, str]:
    if dimension == "status":
        names = db.session.scalars(
            select(State.name).join(Project, Project.id == State.project_id)
            .where(Project.org_id == org_id).distinct()
        )  # fmt: skip
        return {name: name for name in names}
    if dimension == "project":
        rows = db.session.execute(select(Project.id, Project.name).where(Project.org_id == org_id))
        return {str(i): name for i, name in rows}
    people = db.session.execute(
        select(Account.id, Account.name, Account.email)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(OrgMember.org_id == org_id)
    ).all()
    labelled = {str(i): text for i, text in palette.person_labels(people).items()}
    return {**labelled, UNASSIGNED: "Unassigned"}


def status_categories(org_id: uuid.UUID, names: Iterable[str]) -> dict[str, str]:
    """The category each state name of the org is drawn in (its colour, its place)."""
    names = list(set(names))
    if not names:
        return {}
    rows = db.session.execute(
        select(State.name, State.category)
        .join(Project, Project.id == State.project_id)
        .where(Project.org_id == org_id, State.name.in_(names))
    ).all()
    return category_by_name((name, category, 1) for name, category in rows)


def project_slots(ids: Iterable[str]) -> dict[str, int]:
    """``{project id: n}``: the project's place among its org's projects, oldest
    first. Charts colour a project by its place (``palette.PALETTE[n % 12]``), so an
    org's first twelve projects never share a colour and a project keeps its colour
    on every chart."""
    wanted = []
    for key in ids:
        try:
            wanted.append(uuid.UUID(str(key)))
        except ValueError:
            continue
    if not wanted:
        return {}
    orgs = select(Project.org_id).where(Project.id.in_(wanted)).distinct().scalar_subquery()
    rows = db.session.execute(
        select(Project.id, Project.org_id)
        .where(Project.org_id.in_(orgs))
        .order_by(Project.org_id, Project.created_at, Project.id)
    ).all()
    slots: dict[str, int] = {}
    place: Counter[uuid.UUID] = Counter()
    for pid, org_id in rows:
        slots[str(pid)] = place[org_id]
        place[org_id] += 1
    return slots


def drawable(
    org_id: uuid.UUID, points: list[dict[str, Any]], dimension: str | None = None
) -> list[dict[str, Any]]:
    """``points`` (a custom chart's: ``key``, ``value``, ``id``) with what their chart
    is drawn by that only the database knows, so :func:`charts.points_figure` reads
    none of it: a project's ``slot`` (its place among its org's projects, its colour)
    and a state's ``category`` as ``org_id``'s projects have it. Without a
    ``dimension``, what the chart will take the points for; ids that are all projects'
    make them projects."""
    if dimension is None:
        keys = (str(p["key"]) for p in points)
        dimension = palette.infer_dimension(keys, has_ids=any(p.get("id") for p in points))
    ids = [str(p["id"]) for p in points if p.get("id")]
    if ids and dimension in (None, "project"):
        slots = project_slots(ids)
        if slots and all(i in slots for i in ids):
            return [{**p, "slot": slots.get(str(p.get("id")))} for p in points]
    if dimension == "status" and any("category" not in p for p in points):
        found = status_categories(org_id, (str(p["key"]) for p in points))
        return [{"category": found.get(str(p["key"])), **p} for p in points]
    return points
