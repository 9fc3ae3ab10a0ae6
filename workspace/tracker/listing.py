"""A project's task list and board: the query model of the page and the service that
runs it (search, a PQL filter, sort, category tab, paging, list or board).

    query, errors = parse_list_query(request.args)
    result = run_list(access, project, query)   # PQLError (400) on a bad filter

The JSON list API (``GET /projects/<id>/tasks``) takes the same search, filter and sort
(``ListPageQuery``), compiled by the same :func:`pql_condition`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from sqlalchemy import ColumnElement
from werkzeug.datastructures import MultiDict

from workspace.analytics.pql import PQLError, compile_pql
from workspace.core import task_lists, tasks, workflow
from workspace.core.models import Priority, Project, State, StateCategory, Task
from workspace.core.schemas import PqlText, TaskGroup, TaskSearch, TaskSort
from workspace.inputs import InputModel, QueryModel, validation_errors
from workspace.security.permissions import Access

#: Rows per page of the list; cards per column of the board.
PAGE_SIZE = 50
BOARD_CAP = 50

#: A tab of the list: a state category, or "archived" (the archived tasks, which every
#: other tab, search and count leave out: this tab is where they are found again).
Category = Literal[
    "backlog", "unstarted", "started", "completed", "cancelled", "triage", "archived"
]

#: Values a hand-edited URL may get wrong without losing the page: they fall back to
#: their default. A search or a filter that is wrong is shown as an error instead.
LENIENT = ("sort", "dir", "category", "offset", "view", "saved")
#: What the page says beside a field instead of the model's message.
MESSAGES = {"group": "Group by state, priority, kind or assignee."}


class ListPageQuery(QueryModel):
    """The task list's query string (and the fields a bulk edit or a board move carries
    to come back to the same list)."""

    #: Case-insensitive substring of the title.
    q: TaskSearch = ""
    #: A PQL filter (docs/pql.md), the same language as dashboards.
    pql: PqlText = ""
    sort: TaskSort = "created"
    dir: Literal["asc", "desc"] = "desc"
    #: The list's rows in groups of this field (docs/saved_views.md#grouping); the
    #: board always groups by state. Not lenient: a wrong value is a 400 on ``group``.
    group: TaskGroup | None = None
    category: Category | None = None
    offset: int = Field(default=0, ge=0, le=task_lists.MAX_OFFSET)
    view: Literal["list", "board"] = "list"
    #: The saved view the page shows (docs/saved_views.md#changing-a-view), carried by
    #: every link and form of the page so that changing the layout, filter or sort
    #: keeps it; the list itself ignores it (``?view=<id>`` opens a view as saved).
    saved: uuid.UUID | None = None

    @field_validator("group", mode="before")
    @classmethod
    def _blank_is_ungrouped(cls, value: Any) -> Any:
        # The select's "No grouping" option sends ``group=``.
        return None if value == "" else value

    def url_args(self, **override: Any) -> dict[str, Any]:
        """The non-default fields as URL arguments (so links stay short), with
        ``override`` applied; ``offset`` is dropped unless overridden."""
        values = self.model_dump() | {"offset": 0} | override
        defaults = ListPageQuery().model_dump()
        return {k: v for k, v in values.items() if v not in (None, "") and v != defaults[k]}

    @property
    def filtered(self) -> bool:
        return bool(self.q or self.pql)


def parse_list_query(args: MultiDict | dict) -> tuple[ListPageQuery, dict[str, str]]:
    """The page's query from ``args``: wrong paging, sort or tab values fall back to
    their defaults; a search or filter that is too long is an error on its field."""
    data = {k: args.get(k) for k in ListPageQuery.model_fields if args.get(k) is not None}
    errors: dict[str, str] = {}
    for _ in range(len(data) + 1):
        try:
            return ListPageQuery.model_validate(data), errors
        except ValidationError as exc:
            for err in validation_errors(exc):
                name = err["field"].split(".")[0]
                data.pop(name, None)
                if name not in LENIENT:
                    errors[name] = MESSAGES.get(name, err["message"])
    return ListPageQuery(), errors  # pragma: no cover - every round drops a field


@dataclass
class TaskList:
    query: ListPageQuery
    states: list[State]
    rows: list[Task] = field(default_factory=list)
    total: int = 0
    #: The board's columns: (state, its first cards, how many match).
    columns: list[tuple[State, list[Task], int]] = field(default_factory=list)
    #: A grouped list's groups by key (every page's), and the rows of this page that
    #: start one, by task id: each gets a header row before it.
    groups: dict[Any, task_lists.Group] = field(default_factory=dict)
    heads: dict[uuid.UUID, task_lists.Group] = field(default_factory=dict)

    @property
    def next_offset(self) -> int:
        return self.query.offset + PAGE_SIZE


def task_filter(access: Access, project: Project, query: ListPageQuery) -> task_lists.TaskFilter:
    """The service filter for ``query``; raises ``PQLError`` (400 on ``pql``, naming
    the line and column) when the filter cannot run."""
    archived = query.category == "archived"
    return task_lists.TaskFilter(
        project_id=project.id,
        state_category=None if archived else query.category,
        archived_only=archived,
        search=query.q or None,
        condition=pql_condition(access, query.pql),
    )


def pql_condition(access: Access, text: str) -> ColumnElement[bool] | None:
    """A PQL filter as one SQL condition over tasks (``None`` when blank); raises
    ``PQLError`` (400, naming the line and column) when it cannot run."""
    if not text:
        return None
    try:
        return compile_pql(text, access.org.id, access.account.id)
    except PQLError as exc:
        exc.field = "pql"  # the list's parameter, where dashboards call it "filter"
        raise


def run_list(access: Access, project: Project, query: ListPageQuery) -> TaskList:
    """The page's tasks: one page of rows, or the board's capped columns."""
    states = workflow.list_states(project.id)
    flt = task_filter(access, project, query)
    result = TaskList(query=query, states=states)
    descending = query.dir == "desc"
    if query.view == "board":
        shown = [s for s in states if query.category in (None, "archived", s.category)]
        result.columns = task_lists.board_columns(
            access.org.id, flt, shown, cap=BOARD_CAP, sort=query.sort, descending=descending
        )
        result.total = sum(total for _, _, total in result.columns)
    elif query.group is None:
        result.rows, result.total = task_lists.list_tasks(
            access.org.id,
            flt,
            limit=PAGE_SIZE,
            offset=query.offset,
            sort=query.sort,
            descending=descending,
        )
    else:
        _run_grouped(access, flt, query, query.group, result)
    return result


def _run_grouped(
    access: Access,
    flt: task_lists.TaskFilter,
    query: ListPageQuery,
    group: str,
    result: TaskList,
) -> None:
    """One page of a grouped list and the header rows it shows. A later page reads
    one row more, the previous page's last, so a group that page left open goes on
    without a second header ("load more" carries nothing but the offset)."""
    before = 1 if query.offset else 0
    rows, result.total = task_lists.list_tasks(
        access.org.id,
        flt,
        limit=PAGE_SIZE + before,
        offset=query.offset - before,
        sort=query.sort,
        descending=query.dir == "desc",
        group=group,
    )
    previous = task_lists.group_key(rows[0], group) if before and rows else _NO_GROUP
    result.rows = rows[before:]
    result.groups = task_lists.group_counts(access.org.id, flt, group)
    for task in result.rows:
        key = task_lists.group_key(task, group)
        if key != previous and key in result.groups:
            result.heads[task.id] = result.groups[key]
        previous = key


#: Before the first row: no group yet (``None`` is the Unassigned group's key).
_NO_GROUP = object()


class BulkEdit(InputModel):
    """The bulk bar: the selected tasks and what to change on all of them. A blank
    field keeps each task's value; ``assignee_id=none`` unassigns."""

    task_ids: list[uuid.UUID] = Field(min_length=1, max_length=tasks.BULK_MAX)
    state_id: uuid.UUID | None = None
    priority: Priority | None = None
    assignee_id: uuid.UUID | Literal["none"] | None = None

    def changes(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.state_id is not None:
            out["state_id"] = self.state_id
        if self.priority is not None:
            out["priority"] = self.priority.value
        if self.assignee_id is not None:
            out["assignee_id"] = None if self.assignee_id == "none" else self.assignee_id
        return out


#: The categories in the order the tabs show them.
CATEGORIES = [c.value for c in StateCategory]


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def state_list_args(query: ListPageQuery, state: State) -> dict[str, Any]:
    """URL arguments of the list showing one board column in full: the same search
    and filter, narrowed to the state with PQL."""
    condition = f"status = {_quoted(state.name)}"
    pql = f"({query.pql}) AND {condition}" if query.pql else condition
    return query.url_args(view="list", pql=pql, category=None)
