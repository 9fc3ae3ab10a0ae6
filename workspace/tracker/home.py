"""What the org home page sums up, counted in SQL over the analytics definition of
"the tasks that count", so the home page and the charts never disagree."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select

from workspace.analytics.drill import OPEN_WORK, expression, href, metric_clause
from workspace.analytics.scope import counted_tasks
from workspace.core.models import StateCategory, Task
from workspace.core.models.projects import OPEN_CATEGORIES
from workspace.extensions import db


@dataclass(frozen=True)
class TaskCounts:
    #: "Active": backlog, unstarted and started, Flow's work in progress. Not named
    #: "open": the charts' Open metric counts everything not completed, cancelled
    #: included (docs/analytics.md#what-each-number-counts).
    active: int
    completed: int


def task_counts(org_id: uuid.UUID) -> TaskCounts:
    cat = Task.state_category
    row = db.session.execute(
        select(
            func.count().filter(cat.in_([c.value for c in OPEN_CATEGORIES])),
            func.count().filter(cat == StateCategory.COMPLETED.value),
        ).where(*counted_tasks(org_id))
    ).one()
    return TaskCounts(active=row[0] or 0, completed=row[1] or 0)


def count_links(org_slug: str) -> dict[str, str | None]:
    """Where each count opens its tasks: the org task search with the PQL that
    counts them (docs/analytics.md#drill-down)."""
    return {
        "active": href(org_slug, None, expression(OPEN_WORK)),
        "completed": href(org_slug, None, expression(metric_clause("done"))),
    }
