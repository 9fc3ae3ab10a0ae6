"""Task lists: the live tasks a filter matches, sorted and paged, and the board's columns
(docs/core.md). Reads only; every change goes through :mod:`workspace.core.tasks`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, case, func, select

from workspace.core.models import Account, Priority, Project, State, Task
from workspace.core.models.projects import OPEN_CATEGORIES
from workspace.dbfunctions import unicode_lower
from workspace.errors import ServiceError
from workspace.extensions import db

#: Deepest offset a task list pages to: far past any real project, and well inside
#: what SQLite's and PostgreSQL's integers hold.
MAX_OFFSET = 10_000_000


@dataclass
class TaskFilter:
    project_id: uuid.UUID | None = None
    state_id: uuid.UUID | None = None
    state_category: str | None = None
    assignee_id: uuid.UUID | None = None
    priority: str | None = None
    kind: str | None = None
    include_archived: bool = False
    #: Only work still to do: not completed, cancelled or in triage.
    open_only: bool = False
    #: Case-insensitive substring of the title (``%`` and ``_`` are plain characters).
    search: str | None = None
    #: One more SQL condition over ``Task`` (a compiled PQL filter); core cannot
    #: import the analytics layer, so the caller compiles it.
    condition: ColumnElement[bool] | None = None


#: The columns a task list sorts by (``sort=``), each ascending; ``desc`` flips them.
SORTS = (
    "key",
    "title",
    "state",
    "priority",
    "kind",
    "assignee",
    "due",
    "created",
    "updated",
)

#: Priority by urgency, not by alphabet: ascending puts urgent first, none last.
PRIORITY_RANK = {p: rank for rank, p in enumerate(Priority)}


def _conditions(org_id: uuid.UUID, flt: TaskFilter) -> list[Any]:
    conditions: list[Any] = [Task.org_id == org_id, Task.deleted_at.is_(None)]
    if not flt.include_archived:
        conditions.append(Task.archived_at.is_(None))
    if flt.open_only:
        conditions.append(Task.state_category.in_(OPEN_CATEGORIES))
    for column, value in (
        (Task.project_id, flt.project_id),
        (Task.state_id, flt.state_id),
        (Task.state_category, flt.state_category),
        (Task.assignee_id, flt.assignee_id),
        (Task.priority, flt.priority),
        (Task.kind, flt.kind),
    ):
        if value is not None:
            conditions.append(column == value)
    if flt.search:
        needle = flt.search.lower()
        conditions.append(unicode_lower(Task.title).contains(needle, autoescape=True))
    if flt.condition is not None:
        conditions.append(flt.condition)
    return conditions


def _order(query: Any, sort: str, descending: bool) -> Any:
    """``query`` ordered by ``sort``; empty values (no assignee, no due date) go last in
    both directions, and the key (then the id) breaks ties so pages never overlap."""
    empty_last: Any = None
    if sort == "key":
        columns: list[Any] = [Project.identifier, Task.sequence]
        query = query.join(Project, Project.id == Task.project_id)
    elif sort == "title":
        columns = [unicode_lower(Task.title)]
    elif sort == "state":
        columns = [State.position, State.name]
        query = query.join(State, State.id == Task.state_id)
    elif sort == "priority":
        columns = [case(PRIORITY_RANK, value=Task.priority, else_=len(PRIORITY_RANK))]
    elif sort == "kind":
        columns = [Task.kind]
    elif sort == "assignee":
        query = query.outerjoin(Account, Account.id == Task.assignee_id)
        columns = [unicode_lower(Account.name)]
        empty_last = Task.assignee_id
    elif sort == "due":
        columns = [Task.due_date]
        empty_last = Task.due_date
    elif sort == "updated":
        columns = [Task.updated_at]
    else:  # created
        columns = [Task.created_at]
    ordering = [c.desc() if descending else c.asc() for c in columns]
    if empty_last is not None:
        ordering.insert(0, case((empty_last.is_(None), 1), else_=0))
    tiebreak = [Task.sequence.desc(), Task.id] if descending else [Task.sequence, Task.id]
    return query.order_by(*ordering, *tiebreak)


def list_tasks(
    org_id: uuid.UUID,
    flt: TaskFilter,
    *,
    limit: int = 50,
    offset: int = 0,
    sort: str = "created",
    descending: bool = True,
) -> tuple[list[Task], int]:
    """One page of the tasks ``flt`` matches, sorted by ``sort`` (one of
    :data:`SORTS`), and how many match in all."""
    if sort not in SORTS:
        raise ServiceError(f"Sort by one of: {', '.join(SORTS)}.", field="sort")
    conditions = _conditions(org_id, flt)
    total = db.session.scalar(select(func.count()).select_from(Task).where(*conditions))
    query = _order(select(Task).where(*conditions), sort, descending)
    rows = db.session.scalars(query.limit(limit).offset(offset))
    return list(rows), total or 0


def board_columns(
    org_id: uuid.UUID,
    flt: TaskFilter,
    states: list[State],
    *,
    cap: int = 50,
    sort: str = "created",
    descending: bool = True,
) -> list[tuple[State, list[Task], int]]:
    """The board: for each state (in the order given), its first ``cap`` matching
    tasks and how many match in all (counted in SQL)."""
    conditions = _conditions(org_id, flt)
    counts = dict(
        db.session.execute(
            select(Task.state_id, func.count()).where(*conditions).group_by(Task.state_id)
        ).all()
    )
    columns = []
    for state in states:
        total = counts.get(state.id, 0)
        cards: list[Task] = []
        if total:
            query = _order(
                select(Task).where(*conditions, Task.state_id == state.id), sort, descending
            )
            cards = list(db.session.scalars(query.limit(cap)))
        columns.append((state, cards, total))
    return columns
