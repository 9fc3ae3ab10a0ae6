"""The command menu's query and answers, shared by the API and its OpenAPI document."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from workspace.core.schemas import TaskSearch
from workspace.inputs import OutputModel, QueryModel


class MenuQuery(QueryModel):
    #: What the person typed: a task key, or words. Blank: the recent items.
    q: TaskSearch = ""
    #: The client's recent items, newest first, comma-separated ``kind:ref``
    #: (``task:WEB-12,project:<id>``); each is checked again and dropped when gone.
    recent: str = Field(default="", max_length=1500)


class MenuItemOut(OutputModel):
    kind: Literal["task", "project", "dashboard", "person", "page", "action"]
    #: ``kind:ref``: what the client keeps as a recent item.
    ref: str
    title: str
    detail: str
    #: Where choosing the item goes; empty for an action the menu performs itself.
    url: str


class MenuOut(OutputModel):
    query: str
    items: list[MenuItemOut]


class CreateTargetOut(OutputModel):
    id: uuid.UUID
    name: str
    identifier: str
    #: The task-create form route (``POST title=...``) of this project.
    create_url: str
