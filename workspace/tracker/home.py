"""What the org home page sums up, counted in SQL over the analytics definition of
"the tasks that count", so the home page and the charts never disagree."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import Select, case, func, select

from workspace.analytics.drill import OPEN_WORK, expression, href, metric_clause
from workspace.analytics.scope import counted_tasks
from workspace.core.models import Priority, Project, StateCategory, Task
from workspace.core.models.projects import CLOSED_CATEGORIES, OPEN_CATEGORIES
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


#: Priority as a number to sort by: urgent first, none last.
PRIORITY_RANK = case(
    {p.value: i for i, p in enumerate(Priority)}, value=Task.priority, else_=len(Priority)
)


def ordered(query: Select) -> Select:
    """Due date first (none last), then priority (urgent first), then the newest: the
    order of the home page's tasks and of My work (docs/inbox.md#my-work)."""
    return query.order_by(
        Task.due_date.is_(None), Task.due_date, PRIORITY_RANK, Task.created_at.desc(), Task.id
    )


def open_work(org_id: uuid.UUID) -> Select:
    """The org's tasks someone may still work on: not completed or cancelled (triage
    included), neither archived nor deleted, in a project that is not archived (its page says it
    is read-only, so its tasks are not anyone's work). The home page's "Active work"
    and My work's sections narrow it."""
    return select(Task).where(
        Task.org_id == org_id,
        Task.deleted_at.is_(None),
        Task.archived_at.is_(None),
        Task.state_category.not_in([c.value for c in CLOSED_CATEGORIES]),
        Task.project_id.in_(
            select(Project.id).where(Project.org_id == org_id, Project.archived_at.is_(None))
        ),
    )


def my_active_tasks(org_id: uuid.UUID, account_id: uuid.UUID, limit: int = 10) -> list[Task]:
    """The home page's "Active work assigned to you" (backlog, unstarted, started; not
    triage), in :func:`ordered`'s order."""
    query = open_work(org_id).where(
        Task.assignee_id == account_id,
        Task.state_category.in_([c.value for c in OPEN_CATEGORIES]),
    )
    return list(db.session.scalars(ordered(query).limit(limit)))
