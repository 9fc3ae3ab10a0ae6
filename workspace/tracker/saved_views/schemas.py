"""A saved view's input and answer, shared by the JSON API, the pages and the OpenAPI
document (docs/saved_views.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from workspace.core.schemas import PqlText, TaskGroup, TaskSort
from workspace.inputs import NOT_BLANK, InputModel, OutputModel, absent, needed

#: Longest name a view's tab shows in full.
NAME_MAX = 80

ViewName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=NAME_MAX), NOT_BLANK]
Kind = Literal["list", "board"]
Direction = Literal["asc", "desc"]
#: What the list can group its rows by (docs/saved_views.md#grouping): the list's own.
GroupBy = TaskGroup
#: The list's columns a view may show (the selection box and the key always show).
Column = Literal["title", "state", "priority", "kind", "assignee", "due", "created", "updated"]


class SavedViewCreate(InputModel):
    """Save the list or board as it is now: its filter, sort, grouping and columns."""

    name: ViewName = needed(max_length=NAME_MAX)
    kind: Kind = "list"
    pql: PqlText = ""
    sort: TaskSort = "created"
    direction: Direction = "desc"
    group_by: GroupBy | None = None
    #: None: every column. A bare ``list[...]`` first, so forms read repeated keys.
    columns: list[Column] | None = Field(default=None, min_length=1, max_length=8)
    #: Shared with everyone who reads the project; private (only you) otherwise.
    shared: bool = False


class SavedViewPatch(InputModel):
    """Rename a view, change what it shows, or share or unshare it; what is left out
    stays. ``group_by`` and ``columns`` take null to clear them."""

    name: ViewName = absent()
    kind: Kind = absent()
    pql: PqlText = absent()
    sort: TaskSort = absent()
    direction: Direction = absent()
    group_by: GroupBy | None = None
    columns: list[Column] | None = Field(default=None, min_length=1, max_length=8)
    shared: bool = absent()


class SavedViewOut(OutputModel):
    id: uuid.UUID
    project_id: uuid.UUID
    owner_id: uuid.UUID
    name: str
    kind: Kind
    pql: str
    sort: TaskSort
    direction: Direction
    group_by: GroupBy | None
    columns: list[Column] | None
    shared: bool
    created_at: datetime
    updated_at: datetime
    #: Whether the caller may rename, change or delete it.
    editable: bool = False
