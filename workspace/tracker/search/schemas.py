"""The search API's query and answer, shared by the JSON API and its OpenAPI document."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from workspace.core.search_index import MAX_QUERY
from workspace.inputs import OutputModel, QueryModel
from workspace.tracker.search.service import MAX_LIMIT

#: Words, quoted phrases or a task key; blank is refused (400), so is over 200 characters.
SearchText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY)]


class SearchQuery(QueryModel):
    #: Words (each matched as a prefix), "quoted phrases", or a task key like WEB-12.
    q: SearchText
    limit: int = Field(default=20, ge=1, le=MAX_LIMIT)


class SearchPageQuery(QueryModel):
    #: The page's box: blank shows the empty state; too long is an error beside it.
    q: Annotated[str, StringConstraints(max_length=MAX_QUERY)] = ""


class SearchProjectOut(OutputModel):
    id: uuid.UUID
    name: str
    identifier: str


class SearchHitOut(OutputModel):
    id: uuid.UUID
    key: str
    title: str
    project: SearchProjectOut
    state: str
    state_category: str
    #: Why it was found: the exact ``key``, its ``text``, or a ``similar`` title.
    match: Literal["key", "text", "similar"]
    #: The title as HTML: the task's text escaped, the matches in ``<mark>``.
    title_html: str
    #: Where the words matched in the description or comments, as HTML like
    #: ``title_html``; empty when only the key or title matched.
    snippet_html: str
    #: The task's page.
    url: str


class SearchOut(OutputModel):
    query: str
    results: list[SearchHitOut]
