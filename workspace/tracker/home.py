"""What the org home page sums up, counted in SQL over the analytics definition of
"the tasks that count", so the home page and the charts never disagree."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select

from workspace.analytics.scope import counted_tasks
from workspace.core.models import StateCategory, Task
from workspace.core.models.projects import OPEN_CATEGORIES
from workspace.extensions import db


@dataclass(frozen=True)
class TaskCounts:
    #: Work still to do: backlog, unstarted and started (analytics' open work).
    open: int
    completed: int


def task_counts(org_id: uuid.UUID) -> TaskCounts:
    cat = Task.state_category
    row = db.session.execute(
        select(
            func.count().filter(cat.in_([c.value for c in OPEN_CATEGORIES])),
            func.count().filter(cat == StateCategory.COMPLETED.value),
        ).where(*counted_tasks(org_id))
    ).one()
    return TaskCounts(open=row[0] or 0, completed=row[1] or 0)
