"""Task lists: the live tasks a filter matches, sorted and paged, and the board's columns
(docs/core.md). Reads only; every change goes through :mod:`workspace.core.tasks`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.orm import aliased, defer, lazyload

from workspace.core.models import Account, Priority, Project, State, Task, TaskKind, zone_named
from workspace.core.models.projects import CLOSED_CATEGORIES, OPEN_CATEGORIES
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
    #: Only the archived tasks (the list's Archived tab).
    archived_only: bool = False
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
#: Kinds in the order the task form offers them.
KIND_RANK = {k: rank for rank, k in enumerate(TaskKind)}

#: What a task list groups its rows by (``group=``), each a column of ``Task``: the
#: key rows are grouped on (docs/saved_views.md#grouping).
GROUPS = {
    "state": Task.state_id,
    "priority": Task.priority,
    "kind": Task.kind,
    "assignee": Task.assignee_id,
}

# The group's own joins, aliased so they never clash with the sort's (``state`` grouped
# and sorted by state joins the states twice, each for its own ORDER BY).
_GroupState = aliased(State, name="group_state")
_GroupAccount = aliased(Account, name="group_account")


@dataclass(frozen=True)
class Group:
    """One group of a grouped list: its key (``GROUPS``' column), what the header says,
    and how many tasks of the whole list (every page) are in it."""

    key: Any
    label: str
    count: int


def _conditions(org_id: uuid.UUID, flt: TaskFilter) -> list[Any]:
    conditions: list[Any] = [Task.org_id == org_id, Task.deleted_at.is_(None)]
    if flt.archived_only:
        conditions.append(Task.archived_at.is_not(None))
    elif not flt.include_archived:
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


def _group_order(query: Any, group: str) -> Any:
    """``query`` ordered by the group first, in the group's own order whatever the
    sort's direction: states as the workflow lists them, priority urgent to none,
    kinds as the form offers them, assignees by name with Unassigned last. The key
    closes each ordering so two groups that sort alike never interleave."""
    if group == "state":
        query = query.join(_GroupState, _GroupState.id == Task.state_id)
        columns: list[Any] = [_GroupState.position, _GroupState.name, Task.state_id]
    elif group == "priority":
        columns = [case(PRIORITY_RANK, value=Task.priority, else_=len(PRIORITY_RANK))]
    elif group == "kind":
        columns = [case(KIND_RANK, value=Task.kind, else_=len(KIND_RANK)), Task.kind]
    else:  # assignee
        query = query.outerjoin(_GroupAccount, _GroupAccount.id == Task.assignee_id)
        columns = [
            case((Task.assignee_id.is_(None), 1), else_=0),
            unicode_lower(_GroupAccount.name),
            Task.assignee_id,
        ]
    return query.order_by(*columns)


def _check_list_args(sort: str, group: str | None) -> None:
    if sort not in SORTS:
        raise ServiceError(f"Sort by one of: {', '.join(SORTS)}.", field="sort")
    if group is not None and group not in GROUPS:
        raise ServiceError(f"Group by one of: {', '.join(GROUPS)}.", field="group")


def list_tasks(
    org_id: uuid.UUID,
    flt: TaskFilter,
    *,
    limit: int = 50,
    offset: int = 0,
    sort: str = "created",
    descending: bool = True,
    group: str | None = None,
) -> tuple[list[Task], int]:
    """One page of the tasks ``flt`` matches, sorted by ``sort`` (one of
    :data:`SORTS`) within the groups of ``group`` (one of :data:`GROUPS`, or None),
    and how many match in all."""
    _check_list_args(sort, group)
    conditions = _conditions(org_id, flt)
    total = db.session.scalar(select(func.count()).select_from(Task).where(*conditions))
    query = select(Task).where(*conditions)
    if group is not None:
        query = _group_order(query, group)
    query = _order(query, sort, descending)
    rows = db.session.scalars(query.limit(limit).offset(offset))
    return list(rows), total or 0


def group_counts(org_id: uuid.UUID, flt: TaskFilter, group: str) -> dict[Any, Group]:
    """Every group of the tasks ``flt`` matches, by key, with its header's label and
    how many tasks it holds: one GROUP BY, so the counts cover every page."""
    _check_list_args("created", group)
    key = GROUPS[group]
    query: Any
    if group == "state":
        query = select(key, State.name, func.count()).join(State, State.id == Task.state_id)
        query = query.group_by(key, State.name)
    elif group == "assignee":
        query = select(key, Account.name, func.count())
        query = query.outerjoin(Account, Account.id == Task.assignee_id)
        query = query.group_by(key, Account.name)
    else:
        query = select(key, key, func.count()).group_by(key)
    rows = db.session.execute(query.where(*_conditions(org_id, flt))).all()
    return {k: Group(k, _group_label(group, k, name), n) for k, name, n in rows}


def _group_label(group: str, key: Any, name: str | None) -> str:
    if group == "assignee":
        return name if key is not None and name else "Unassigned"
    if group == "priority" and key == Priority.NONE:
        return "No priority"
    return name if group == "state" else str(name).capitalize()


def group_key(task: Task, group: str) -> Any:
    """The key of ``task``'s group (what :func:`group_counts` answers by)."""
    return getattr(task, GROUPS[group].key)


#: What a board card needs of a task, no more: its state and project are the column's
#: and the page's (already in the session, so no join per row), and the description is
#: never shown on a card.
_CARD_LOAD = (lazyload(Task.state), lazyload(Task.project), defer(Task.description))


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
            cards = list(db.session.scalars(query.limit(cap).options(*_CARD_LOAD)))
        columns.append((state, cards, total))
    return columns


def today_in(timezone: str) -> date:
    """Today in the org's IANA zone (UTC when the name is unknown): the day "overdue"
    compares due dates with, as analytics' scope does."""
    return datetime.now(UTC).astimezone(zone_named(timezone)).date()


def is_overdue(task: Task, today: date) -> bool:
    """Due before ``today`` and neither completed nor cancelled (analytics' rule)."""
    return (
        task.due_date is not None
        and task.due_date < today
        and task.state_category not in {c.value for c in CLOSED_CATEGORIES}
    )
