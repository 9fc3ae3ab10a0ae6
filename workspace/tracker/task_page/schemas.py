"""The task page's own inputs (docs/tasks.md#editing-in-place): which field a page
without JavaScript opens for editing, and the description a preview renders."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from workspace.core.models import Account, Task
from workspace.core.schemas import TaskOut, Text
from workspace.inputs import InputModel, QueryModel


class TaskPageQuery(QueryModel):
    #: The field shown as its form when the page loads: the no-JavaScript path of the
    #: Edit buttons (``?edit=title``); with JavaScript they open in place instead.
    edit: Literal["title", "description"] | None = None


class DescriptionPreview(InputModel):
    #: The same limit as a saved description (``TaskPatch.description``), so a preview
    #: never shows what Save would refuse.
    description: Text = ""


class DeletedTaskOut(TaskOut):
    """A deleted task as ``GET …/deleted-tasks`` lists it: the task as it was, when
    it was deleted and by whom (null: unknown)."""

    deleted_at: datetime
    deleted_by_id: uuid.UUID | None

    @classmethod
    def of(cls, task: Task, deleted_by: Account | None) -> DeletedTaskOut:
        shown = TaskOut.model_validate(task).model_dump()
        by = deleted_by.id if deleted_by is not None else None
        return cls(**shown, deleted_at=task.deleted_at, deleted_by_id=by)


class RestoreForm(InputModel):
    #: Where the page goes after: the task (the delete's Undo), or back to the
    #: Deleted tasks list (its Restore buttons, to restore the next).
    back: Literal["task", "list"] = "task"
