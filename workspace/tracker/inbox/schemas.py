"""The inbox's and the mention picker's inputs and answers, shared by the JSON API,
the pages and the OpenAPI document (docs/inbox.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from workspace.core.task_lists import MAX_OFFSET
from workspace.inputs import InputModel, OutputModel, QueryModel


class InboxQuery(QueryModel):
    #: Only the unread ones.
    unread: bool = False
    limit: int = Field(default=50, ge=1, le=200)
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)


class NotificationOut(OutputModel):
    id: uuid.UUID
    kind: Literal["mention", "assigned", "comment", "state"]
    #: What happened, in words: "Mia commented on WEB-12".
    summary: str
    task_id: uuid.UUID
    task_key: str
    task_title: str
    #: The task page (and the comment, for a comment or a mention in one).
    url: str
    actor_id: uuid.UUID | None
    actor_name: str | None
    comment_id: uuid.UUID | None
    #: A state change's new state.
    detail: str | None
    created_at: datetime
    read: bool
    read_at: datetime | None


class InboxOut(OutputModel):
    items: list[NotificationOut]
    #: How many match the query (all, or the unread ones).
    total: int
    #: How many are unread, whatever the query.
    unread: int
    limit: int
    offset: int


class MarkReadIn(InputModel):
    #: False marks it unread again.
    read: bool = True


class InboxAction(InputModel):
    """The inbox page's Mark read / Mark all read forms."""

    #: False marks it unread again.
    read: bool = True
    #: The page was showing only the unread ones: go back to that.
    unread: bool = False


class MyWorkQuery(QueryModel):
    section: Literal["assigned", "created", "subscribed"] = "assigned"


class MarkAllOut(OutputModel):
    #: How many were unread and are now read.
    marked: int
    unread: int


class PeopleQuery(QueryModel):
    #: Part of a name or an email address; blank lists the first people by name.
    q: str = Field(default="", max_length=200)


class PersonOut(OutputModel):
    id: uuid.UUID
    name: str
    #: What to write after ``@`` to mention them (docs/inbox.md#mentions).
    handle: str
    is_agent: bool


class SubscriptionIn(InputModel):
    subscribed: bool


class SubscriptionOut(OutputModel):
    task_id: uuid.UUID
    subscribed: bool
