"""The task page's own inputs (docs/tasks.md#editing-in-place): which field a page
without JavaScript opens for editing, and the description a preview renders."""

from __future__ import annotations

from typing import Literal

from workspace.core.schemas import Text
from workspace.inputs import InputModel, QueryModel


class TaskPageQuery(QueryModel):
    #: The field shown as its form when the page loads: the no-JavaScript path of the
    #: Edit buttons (``?edit=title``); with JavaScript they open in place instead.
    edit: Literal["title", "description"] | None = None


class DescriptionPreview(InputModel):
    #: The same limit as a saved description (``TaskPatch.description``), so a preview
    #: never shows what Save would refuse.
    description: Text = ""
