"""A project's workflow: its states, added, renamed, reordered, recategorized with the
tasks they hold and deleted, each change recorded with its actor (docs/projects.md).
Cycles and modules are in :mod:`workspace.core.planning`; both check names and record
events through the helpers here."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import case, func, insert, literal, select, update

from workspace.core.models import Project, State, StateCategory, Task, TaskActivity
from workspace.core.models.projects import CLOSED_CATEGORIES
from workspace.core.models.tasks import ACTIVITY_COLUMNS
from workspace.core.projects import project_event
from workspace.dbfunctions import equals_ignoring_case, random_uuid
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.types import utcnow

#: A state's, cycle's or module's name: the columns hold 100 characters.
NAME_MAX = 100
#: The category of finished work; a project keeps at least one completed state.
_DONE = StateCategory.COMPLETED


# -- what states, cycles and modules share ------------------------------------------------


def workflow_event(
    project: Project, kind: str, actor_id: uuid.UUID | None, name: str, **data: Any
) -> None:
    project_event(project, kind, actor_id, name, project=project.name, **data)


def unique_name(model, project_id: uuid.UUID, name: str, noun: str) -> None:
    if db.session.scalar(
        select(model.id).where(
            model.project_id == project_id,
            equals_ignoring_case(model.name, name),
        )
    ):
        raise ConflictError(f"This project already has a {noun} named '{name}'.", field="name")


def clean_name(name: str | None, noun: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ServiceError(f"Give the {noun} a name.", field="name")
    if len(name) > NAME_MAX:
        raise ServiceError(f"A {noun} name has at most {NAME_MAX} characters.", field="name")
    return name


def unique_other(model, row, name: str, noun: str) -> None:
    """No other row of this project carries ``name`` (any case)."""
    if db.session.scalar(
        select(model.id).where(
            model.project_id == row.project_id,
            model.id != row.id,
            equals_ignoring_case(model.name, name),
        )
    ):
        raise ConflictError(f"This project already has a {noun} named '{name}'.", field="name")


def in_project(model, project: Project, row_id: uuid.UUID, noun: str):
    """The ``model`` row ``row_id`` of ``project``; another project's is not found."""
    row = db.session.get(model, row_id)
    if row is None or row.project_id != project.id:
        raise NotFoundError(f"No such {noun} in this project.")
    return row


# -- states -------------------------------------------------------------------------------


def list_states(project_id: uuid.UUID) -> list[State]:
    return list(
        db.session.scalars(
            select(State).where(State.project_id == project_id).order_by(State.position)
        )
    )


def create_state(
    project: Project,
    name: str,
    category: StateCategory,
    color: str | None = None,
    *,
    actor_id: uuid.UUID | None = None,
) -> State:
    unique_name(State, project.id, name, "state")
    position = db.session.scalar(
        select(func.coalesce(func.max(State.position), -1) + 1).where(
            State.project_id == project.id
        )
    )
    state = State(
        project_id=project.id,
        name=name,
        category=category,
        color=color or "#8b8fa3",
        position=position,
    )
    db.session.add(state)
    db.session.flush()
    workflow_event(project, "project.state_created", actor_id, name, category=str(category))
    return state


def get_state(project: Project, state_id: uuid.UUID) -> State:
    return in_project(State, project, state_id, "state")


def state_task_counts(
    project_id: uuid.UUID,
) -> tuple[dict[uuid.UUID, int], dict[uuid.UUID, int]]:
    """State id -> how many tasks (not deleted) are in it, and how many of those are
    archived; counted in SQL, in one query."""
    archived = func.sum(case((Task.archived_at.is_not(None), 1), else_=0))
    rows = db.session.execute(
        select(Task.state_id, func.count(), archived)
        .where(Task.project_id == project_id, Task.deleted_at.is_(None))
        .group_by(Task.state_id)
    ).all()
    return (
        {state_id: count for state_id, count, _ in rows},
        {state_id: int(shelved) for state_id, _, shelved in rows if shelved},
    )


def tasks_in_state(state: State) -> int:
    """How many tasks (not deleted; archived ones included) are in ``state``."""
    return db.session.scalar(
        select(func.count())
        .select_from(Task)
        .where(Task.state_id == state.id, Task.deleted_at.is_(None))
    )


def _category_label(category: str) -> str:
    return str(category).capitalize()


def recategorize_preview(state: State, category: StateCategory) -> str:
    """What moving ``state`` to ``category`` would do, in the words the page shows
    before the person confirms. Reads only."""
    _check_recategorize(state, category)
    if state.category == category:
        return f"'{state.name}' is already {_category_label(category)}; nothing moves."
    count = tasks_in_state(state)
    noun = "task" if count == 1 else "tasks"
    old, new = _category_label(state.category), _category_label(category)
    if count == 0:
        return f"No tasks are in '{state.name}'; only the state moves from {old} to {new}."
    text = f"{count} {noun} in '{state.name}' will move from {old} to {new}"
    if category == _DONE:
        return text + " (they will count as done from now)."
    if state.category == _DONE:
        return text + " (they will no longer count as done)."
    return text + "."


def _others_in(state: State, category: str) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(State)
        .where(
            State.project_id == state.project_id,
            State.id != state.id,
            State.category == category,
        )
    )


def _last_completed(state: State) -> str | None:
    """Why ``state`` may not stop being completed: it is the project's only completed
    state (a project keeps one). None when another completed state remains."""
    if state.category == _DONE and not _others_in(state, _DONE):
        return (
            f"'{state.name}' is the project's only completed state; add another completed "
            "state first."
        )
    return None


def _check_recategorize(state: State, category: StateCategory) -> None:
    if state.category == category:
        return
    if state.is_default and category in CLOSED_CATEGORIES:
        raise ServiceError(
            f"'{state.name}' is the state new tasks start in; it cannot be completed or cancelled.",
            field="category",
        )
    if refusal := _last_completed(state):
        raise ServiceError(refusal, field="category")


def _recategorize(
    project: Project, state: State, category: StateCategory, actor_id: uuid.UUID | None
) -> int:
    """Move the state and every task in it to ``category`` in SQL: the tasks'
    denormalized category and ``completed_at``, and one state activity row per moved
    task (old and new category) so flow and forecast see the move. Returns the count."""
    _check_recategorize(state, category)
    old = state.category
    if old == category:
        return 0
    now = utcnow()
    in_state = Task.state_id == state.id
    completed_at = (
        func.coalesce(Task.completed_at, literal(now, type_=Task.completed_at.type))
        if category == _DONE
        else None
    )
    # The UPDATE first: it takes the tasks' row locks, as update_task does for one task.
    # A live task gets a state history row below, so it enters the new category now;
    # a deleted one gets none and keeps its time (state_entered_at mirrors the history).
    entered = case(
        (Task.deleted_at.is_(None), literal(now, type_=Task.state_entered_at.type)),
        else_=Task.state_entered_at,
    )
    db.session.execute(
        update(Task)
        .where(in_state)
        .values(state_category=str(category), completed_at=completed_at, state_entered_at=entered)
        .execution_options(synchronize_session=False)
    )
    moved = tasks_in_state(state)
    db.session.execute(
        insert(TaskActivity).from_select(
            ACTIVITY_COLUMNS,
            select(
                random_uuid(),
                Task.org_id,
                Task.id,
                literal(actor_id, type_=TaskActivity.actor_id.type),
                literal("state"),
                literal(state.name),
                literal(state.name),
                literal(str(old)),
                literal(str(category)),
                literal(now, type_=TaskActivity.created_at.type),
            ).where(in_state, Task.deleted_at.is_(None)),
        )
    )
    db.session.execute(
        update(Task)
        .where(in_state, Task.deleted_at.is_(None))
        .values(updated_at=now)
        .execution_options(synchronize_session=False)
    )
    state.category = str(category)
    # Tasks already loaded in this session would show the old category.
    for obj in list(db.session.identity_map.values()):
        if isinstance(obj, Task) and obj.state_id == state.id:
            db.session.expire(obj)
    workflow_event(
        project,
        "project.state_recategorized",
        actor_id,
        state.name,
        state_id=str(state.id),
        old_category=str(old),
        new_category=str(category),
        moved_tasks=str(moved),
    )
    return moved


def _move(state: State, position: int) -> None:
    states = list_states(state.project_id)
    states.remove(state)
    position = max(0, min(position, len(states)))
    states.insert(position, state)
    for index, row in enumerate(states):
        row.position = index


def update_state(
    project: Project,
    state: State,
    actor_id: uuid.UUID | None,
    *,
    name: str | None = None,
    category: StateCategory | None = None,
    position: int | None = None,
) -> int:
    """Rename, reorder (``position`` is the 0-based place on the board; the others
    close up) or recategorize a state; each records its own event. Returns how many
    tasks moved category (0 unless the category changed)."""
    if name is not None:
        name = clean_name(name, "state")
        if name != state.name:
            unique_other(State, state, name, "state")
            old_name, state.name = state.name, name
            db.session.flush()
            workflow_event(project, "project.state_renamed", actor_id, name, old_name=old_name)
    if position is not None:
        if position < 0:
            raise ServiceError("A position is 0 or more.", field="position")
        before = state.position
        _move(state, position)
        db.session.flush()
        if state.position != before:
            workflow_event(
                project,
                "project.state_moved",
                actor_id,
                state.name,
                position=str(state.position),
                old_position=str(before),
            )
    moved = 0
    if category is not None:
        moved = _recategorize(project, state, StateCategory(category), actor_id)
    db.session.flush()
    return moved


def delete_state(project: Project, state: State, actor_id: uuid.UUID | None) -> None:
    """Delete a state no task is in. The default state stays, and so does the project's
    last completed state. Deleted tasks still pointing at it go to the default state."""
    if state.is_default:
        raise ConflictError(
            f"'{state.name}' is the state new tasks start in; it cannot be deleted.",
            field="state_id",
        )
    count = tasks_in_state(state)
    if count:
        noun = "task is" if count == 1 else "tasks are"
        raise ConflictError(
            f"{count} {noun} in '{state.name}'; choose the state they move to.",
            field="move_to",  # the delete's choice (docs/projects.md#workflow-states)
        )
    if refusal := _last_completed(state):
        raise ConflictError(refusal, field="state_id")
    default = db.session.scalar(
        select(State).where(State.project_id == project.id, State.is_default.is_(True))
    )
    if default is not None:
        # Only deleted tasks remain here; the move writes no history, so their
        # state_entered_at (which mirrors the history) stays as it is.
        db.session.execute(
            update(Task)
            .where(Task.state_id == state.id)
            .values(state_id=default.id, state_category=default.category)
            .execution_options(synchronize_session=False)
        )
    name = state.name
    db.session.delete(state)
    db.session.flush()
    _renumber(project.id)
    workflow_event(project, "project.state_deleted", actor_id, name)
    db.session.flush()


def _renumber(project_id: uuid.UUID) -> None:
    for index, row in enumerate(list_states(project_id)):
        row.position = index
