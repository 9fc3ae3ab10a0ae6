"""What a project's settings do beyond one core service: deleting a state together
with moving its tasks out, and a cycle or module together with taking its tasks out
of it (docs/projects.md#states, #cycles-and-modules)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select, update

from workspace.core import planning, tasks, workflow
from workspace.core.models import Cycle, Module, Project, State, Task
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import db
from workspace.transaction import run_deferred_triggers


def delete_state(
    project: Project, state: State, actor_id: uuid.UUID | None, move_to: uuid.UUID | None
) -> int:
    """Delete ``state``; with ``move_to``, after moving each of its tasks (archived
    ones too) to that state of the project. Without it a state with tasks is refused
    (``workflow.delete_state``). Returns how many tasks moved."""
    if move_to is None:
        workflow.delete_state(project, state, actor_id)
        return 0
    if move_to == state.id:
        raise ServiceError("Choose another state to move its tasks to.", field="move_to")
    try:
        target = workflow.get_state(project, move_to)
    except NotFoundError:  # a field of the form, not the URL: 422 on it
        raise ServiceError(
            "Choose a state of this project to move the tasks to.", field="move_to"
        ) from None
    moved = _take_out(Task.state_id == state.id, {"state_id": target.id}, actor_id)
    # Deleted tasks go where the live ones went, so one restored later comes back in
    # the state chosen, not in the default one; like workflow's own re-pointing of
    # them, without a history row (they are in no list or count).
    db.session.execute(
        update(Task)
        .where(Task.state_id == state.id, Task.deleted_at.is_not(None))
        .values(state_id=target.id, state_category=target.category)
        .execution_options(synchronize_session=False)
    )
    workflow.delete_state(project, state, actor_id)
    return moved


def delete_plan(project: Project, row: Cycle | Module, actor_id: uuid.UUID | None) -> int:
    """Delete a cycle or module; its tasks (archived ones too) leave it first and stay
    in the project. Returns how many left it."""
    field = "cycle_id" if isinstance(row, Cycle) else "module_id"
    left = _take_out(getattr(Task, field) == row.id, {field: None}, actor_id)
    planning.delete_plan(project, row, actor_id)
    return left


def _take_out(where: Any, changes: dict[str, Any], actor_id: uuid.UUID | None) -> int:
    """Apply ``changes`` to each live task ``where`` holds through ``tasks.update_task``,
    so each is in the task's history, the rollups and the followers' inboxes as if made
    by hand; then run the rollup triggers the moves queued. Those wait for COMMIT on
    PostgreSQL: run after the delete that follows (whose cascade takes the row's rollup
    rows) they would write to rows of a state or cycle that is gone."""
    moving = db.session.scalars(
        select(Task).where(where, Task.deleted_at.is_(None)).order_by(Task.sequence)
    ).all()
    for task in moving:
        tasks.update_task(task, actor_id, changes)
    db.session.flush()
    run_deferred_triggers()
    return len(moving)
