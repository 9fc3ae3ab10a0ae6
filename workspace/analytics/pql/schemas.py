"""The PQL box's suggest query and answer, shared by the API and its OpenAPI document."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from workspace.analytics.vocabulary import MAX_PQL_LENGTH
from workspace.inputs import OutputModel, QueryModel


class SuggestQuery(QueryModel):
    # The cursor counts characters of q as typed: stripping spaces would move it.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)

    #: The PQL box's text, at most as long as a filter may be.
    q: str = Field(default="", max_length=MAX_PQL_LENGTH)
    #: Where the cursor is, in characters from the start (default, or past it: the end).
    cursor: int | None = Field(default=None, ge=0, le=MAX_PQL_LENGTH, validate_default=True)
    #: A project whose states, cycles and modules come first (the task list's).
    project: uuid.UUID | None = None

    @field_validator("cursor")
    @classmethod
    def _cursor_within_text(cls, cursor: int | None, info: ValidationInfo) -> int:
        # Past the end (or none) is the end: the document cannot say "at most len(q)",
        # and a box whose text shrank while a request was on its way means the end.
        text = info.data.get("q") or ""
        return len(text) if cursor is None else min(cursor, len(text))


class SuggestionOut(OutputModel):
    label: str
    #: The text that replaces ``q[start:end]`` when the suggestion is chosen.
    insert: str
    kind: Literal["field", "operator", "value", "function", "keyword"]
    detail: str


class SuggestOut(OutputModel):
    #: What the cursor is at: field, operator, value, keyword; not_in after
    #: ``field NOT`` (IN follows), empty after ``field IS`` (EMPTY or NOT EMPTY).
    expects: str
    #: The field a value or operator is for.
    field: str | None
    start: int
    end: int
    suggestions: list[SuggestionOut]
