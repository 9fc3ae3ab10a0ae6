"""Tasks and their history. Every change goes through :func:`update_task`, which
writes one activity row per changed field; state changes carry both categories. The
lists and the board read through :mod:`workspace.core.task_lists`."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import select, update

from workspace.core import notifications
from workspace.core.accounts import require_active_member
from workspace.core.dates import check_plan_day
from workspace.core.models import (
    Account,
    Cycle,
    Module,
    Priority,
    Project,
    State,
    StateCategory,
    Task,
    TaskActivity,
    TaskKind,
)
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import db
from workspace.transaction import lock_row
from workspace.types import utcnow

#: Fields a caller may change, beside ``archived``.
EDITABLE = (
    "title",
    "description",
    "state_id",
    "priority",
    "kind",
    "assignee_id",
    "cycle_id",
    "module_id",
    "due_date",
)

#: Fields a change may not clear.
NOT_NULL = ("title", "state_id", "priority", "kind", "archived")


#: Most tasks one bulk edit changes; a selection is one page of the list at most.
BULK_MAX = 200


def _state_in(project_id: uuid.UUID, state_id: uuid.UUID) -> State:
    state = db.session.get(State, state_id)
    if state is None or state.project_id != project_id:
        raise ServiceError("That state does not belong to this project.", field="state_id")
    return state


def _default_state(project_id: uuid.UUID) -> State:
    states = db.session.scalars(
        select(State)
        .where(State.project_id == project_id)
        .order_by(State.is_default.desc(), State.position)
    ).all()
    if not states:
        raise ServiceError("This project has no states; add one first.", field="state_id")
    return states[0]


def _check_refs(project: Project, values: dict[str, Any]) -> None:
    for field, model in (("cycle_id", Cycle), ("module_id", Module)):
        ref = values.get(field)
        if ref is not None:
            row = db.session.get(model, ref)
            if row is None or row.project_id != project.id:
                raise ServiceError(
                    f"That {field[:-3]} does not belong to this project.", field=field
                )
    if values.get("assignee_id") is not None:
        require_active_member(project.org_id, values["assignee_id"], field="assignee_id")
    if "priority" in values and values["priority"] not in Priority.__members__.values():
        raise ServiceError("Unknown priority.", field="priority")
    if "kind" in values and values["kind"] not in TaskKind.__members__.values():
        raise ServiceError("Unknown kind.", field="kind")


def _history(task: Task, actor_id: uuid.UUID | None, field: str, **values: Any) -> TaskActivity:
    """Add one row of the task's history: ``actor_id`` changed ``field``."""
    row = TaskActivity(
        org_id=task.org_id, task_id=task.id, actor_id=actor_id, field=field, **values
    )
    db.session.add(row)
    return row


def _next_sequence(project: Project) -> int:
    # An UPDATE ... RETURNING would be nicer; this form runs on both databases and the
    # row lock it takes serializes concurrent creations within one project.
    db.session.execute(
        update(Project)
        .where(Project.id == project.id)
        .values(next_sequence=Project.next_sequence + 1)
    )
    return db.session.scalar(select(Project.next_sequence).where(Project.id == project.id)) - 1


def create_task(
    project: Project,
    actor_id: uuid.UUID | None,
    *,
    title: str,
    state_id: uuid.UUID | None = None,
    priority: str = Priority.NONE,
    kind: str = TaskKind.TASK,
    assignee_id: uuid.UUID | None = None,
    cycle_id: uuid.UUID | None = None,
    module_id: uuid.UUID | None = None,
    due_date: date | None = None,
    description: str = "",
    created_at: datetime | None = None,
) -> Task:
    if not (title or "").strip():
        raise ServiceError("A task needs a title.", field="title")
    check_plan_day(due_date, "due_date")
    if project.archived_at is not None:
        raise ServiceError("This project is archived; restore it to add tasks.")
    state = _state_in(project.id, state_id) if state_id else _default_state(project.id)
    values = {
        "priority": priority,
        "kind": kind,
        "assignee_id": assignee_id,
        "cycle_id": cycle_id,
        "module_id": module_id,
    }
    _check_refs(project, values)
    now = created_at or utcnow()
    task = Task(
        org_id=project.org_id,
        project_id=project.id,
        sequence=_next_sequence(project),
        title=title,
        description=description,
        state_id=state.id,
        state_category=state.category,
        due_date=due_date,
        created_by_id=actor_id,
        created_at=now,
        updated_at=now,
        state_entered_at=now,
        completed_at=now if state.category == StateCategory.COMPLETED else None,
        **values,
    )
    db.session.add(task)
    db.session.flush()
    _history(
        task,
        actor_id,
        "created",
        new_value=preview(title),
        new_category=state.category,
        created_at=now,
    )
    notifications.on_task_created(task, actor_id)  # same transaction: docs/inbox.md
    return task


#: What an activity row keeps of a changed value: a preview for the history, which
#: fits its column; the task itself holds the full text.
ACTIVITY_PREVIEW = 500


def preview(text: str) -> str:
    return text[:ACTIVITY_PREVIEW]


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    return preview(value.isoformat() if isinstance(value, date) else str(value))


def lock_task(task: Task) -> None:
    """Serialize writes to one task on its row, then read the task again.

    Each history row records the old value it replaced; two PATCHes that both read the
    task before either writes would both record the same old value and break the chain
    that flow and forecast replay (docs/security.md#concurrency). The refresh reads the
    values committed by whoever held the lock before us.
    """
    db.session.flush()
    lock_row(Task.id == task.id, Task.sequence)
    db.session.refresh(task)


def update_task(
    task: Task, actor_id: uuid.UUID | None, changes: dict[str, Any], *, at: datetime | None = None
) -> list[TaskActivity]:
    """Apply ``changes`` (field -> new value; ``archived`` -> bool) and record each
    actual change. Returns the activity rows written."""
    unknown = set(changes) - set(EDITABLE) - {"archived"}
    if unknown:
        raise ServiceError(f"These fields cannot be changed: {', '.join(sorted(unknown))}.")
    for required in NOT_NULL:
        if required in changes and changes[required] is None:
            raise ServiceError(f"{required} cannot be null.", field=required)
    lock_task(task)
    project = db.session.get(Project, task.project_id)
    _check_refs(project, {k: v for k, v in changes.items() if k != "state_id"})
    now = at or utcnow()  # after the lock: the history's order is the order of the writes
    old_description = task.description  # new @mentions only are told
    written: list[TaskActivity] = []

    def log(field: str, old: Any, new: Any, **extra: Any) -> None:
        row = _history(
            task,
            actor_id,
            field,
            old_value=_as_text(old),
            new_value=_as_text(new),
            created_at=now,
            **extra,
        )
        written.append(row)

    for field, new in changes.items():
        if field == "archived":
            if bool(new) != (task.archived_at is not None):
                task.archived_at = now if new else None
                log("archived", not new, bool(new))
            continue
        if field == "title" and not (new or "").strip():
            raise ServiceError("A task needs a title.", field="title")
        if field == "due_date":
            check_plan_day(new, "due_date")
        old = getattr(task, field)
        if old == new:
            continue
        if field == "state_id":
            state = _state_in(task.project_id, new)
            old_state = db.session.get(State, task.state_id)
            log(
                "state",
                old_state.name,
                state.name,
                old_category=task.state_category,
                new_category=state.category,
            )
            # One UPDATE at the flush: the state, its category and when it was entered
            # (flow's age) change together under the row lock taken above.
            task.state_id, task.state_category = state.id, state.category
            task.state = state  # what the answer reads (state_name), not the old one
            task.state_entered_at = now
            if state.category == StateCategory.COMPLETED:
                task.completed_at = task.completed_at or now
            else:
                task.completed_at = None
            continue
        log(field, old, new)
        setattr(task, field, new)
    if written:
        task.updated_at = now
    db.session.flush()
    notifications.on_task_updated(task, actor_id, written, old_description)
    return written


def get_task(org_id: uuid.UUID, task_id: uuid.UUID) -> Task:
    task = db.session.get(Task, task_id)
    if task is None or task.org_id != org_id or task.deleted_at is not None:
        raise NotFoundError("No such task in this organization.")
    return task


def get_task_by_key(org_id: uuid.UUID, key: str, *, deleted: bool = False) -> Task:
    """The task a key like ``WEB-12`` names (case-insensitive), with ``deleted`` the
    deleted one; 404 for anything else."""
    identifier, _, number = key.upper().rpartition("-")
    if not identifier or not number.isdigit() or len(number) > 9:
        raise NotFoundError("No such task in this organization.")
    task = db.session.scalar(
        select(Task)
        .join(Project, Project.id == Task.project_id)
        .where(
            Project.org_id == org_id,
            Project.identifier == identifier,
            Task.sequence == int(number),
            Task.deleted_at.is_not(None) if deleted else Task.deleted_at.is_(None),
        )
    )
    if task is None:
        raise NotFoundError("No such task in this organization.")
    return task


def delete_task(task: Task, actor_id: uuid.UUID | None) -> None:
    """Soft delete: the task leaves every list and count; its history stays, and
    :func:`restore_task` brings it back."""
    task.deleted_at = task.updated_at = utcnow()
    _history(task, actor_id, "deleted", new_value="true")


def restore_task(
    project: Project, task_id: uuid.UUID, actor_id: uuid.UUID | None
) -> tuple[Task, bool]:
    """A deleted task of ``project`` back in every list and count, with its key, its
    fields and its history; and whether this call restored it (False: it was live
    already, a second Undo or a teammate first). 404 for another project's or none."""
    task = db.session.scalar(select(Task).where(Task.id == task_id, Task.project_id == project.id))
    if task is None:
        raise NotFoundError("No task of this project has that id.")
    if task.deleted_at is None:
        return task, False
    task.deleted_at, task.updated_at = None, utcnow()
    _history(task, actor_id, "restored", new_value="true")
    return task, True


def deleted_tasks(project: Project, limit: int = 100) -> list[tuple[Task, Account | None]]:
    """The project's deleted tasks, the most recently deleted first, each with who
    deleted it last (None: nobody recorded, such as a bulk load's)."""
    found = db.session.scalars(
        select(Task)
        .where(Task.project_id == project.id, Task.deleted_at.is_not(None))
        .order_by(Task.deleted_at.desc(), Task.sequence.desc())
        .limit(limit)
    ).all()
    # Oldest first, so a task deleted, restored and deleted again keeps the last one.
    deleters = dict(
        db.session.execute(
            select(TaskActivity.task_id, Account)
            .join(Account, Account.id == TaskActivity.actor_id)
            .where(TaskActivity.task_id.in_([t.id for t in found]),
                   TaskActivity.field == "deleted")
            .order_by(TaskActivity.created_at)
        ).all()
    )  # fmt: skip
    return [(task, deleters.get(task.id)) for task in found]


def bulk_update_tasks(
    project: Project, actor_id: uuid.UUID | None, task_ids: list[uuid.UUID], changes: dict[str, Any]
) -> list[Task]:
    """Apply the same ``changes`` (state, assignee, priority) to each of ``task_ids``
    through :func:`update_task`, so each task gets its own activity rows.

    All or nothing: an id that is not a live task of ``project`` (another project's,
    another org's, deleted or unknown) refuses the whole edit before anything changes;
    a refused change raises, and the request's rollback undoes the tasks done so far.
    """
    allowed = {"state_id", "assignee_id", "priority"}
    if not changes:
        raise ServiceError("Choose a state, an assignee or a priority to change.")
    if set(changes) - allowed:
        raise ServiceError("A bulk edit changes only the state, the assignee or the priority.")
    ids = list(dict.fromkeys(task_ids))
    if not ids:
        raise ServiceError("Select at least one task.", field="task_ids")
    if len(ids) > BULK_MAX:
        raise ServiceError(f"Select at most {BULK_MAX} tasks for one bulk edit.", field="task_ids")
    if "state_id" in changes:
        _state_in(project.id, changes["state_id"])
    _check_refs(project, {k: v for k, v in changes.items() if k != "state_id"})
    found = {
        t.id: t
        for t in db.session.scalars(
            select(Task).where(
                Task.id.in_(ids), Task.project_id == project.id, Task.deleted_at.is_(None)
            )
        )
    }
    missing = [i for i in ids if i not in found]
    if missing:
        raise NotFoundError(
            f"{len(missing)} of the selected tasks are not in this project; nothing was changed."
        )
    selected = [found[i] for i in ids]
    for task in selected:
        update_task(task, actor_id, changes)
    return selected


def task_activity(task: Task) -> list[TaskActivity]:
    return list(
        db.session.scalars(
            select(TaskActivity)
            .where(TaskActivity.task_id == task.id)
            .order_by(TaskActivity.created_at, TaskActivity.id)
        )
    )
