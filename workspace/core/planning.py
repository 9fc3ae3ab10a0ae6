"""A project's plan: its cycles (time boxes) and modules (areas of the product) that
tasks are grouped by, each change recorded with its actor (docs/projects.md)."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy import case, func, select

from workspace.core.dates import check_plan_day, day
from workspace.core.models import Cycle, Module, Project, StateCategory, Task
from workspace.core.workflow import (
    clean_name,
    in_project,
    unique_name,
    unique_other,
    workflow_event,
)
from workspace.errors import ServiceError
from workspace.extensions import db


def list_cycles(project_id: uuid.UUID) -> list[Cycle]:
    return list(
        db.session.scalars(
            select(Cycle)
            .where(Cycle.project_id == project_id)
            .order_by(Cycle.start_date, Cycle.name)
        )
    )


def create_cycle(
    project: Project,
    name: str,
    start_date: date | None,
    end_date: date | None,
    *,
    actor_id: uuid.UUID | None = None,
) -> Cycle:
    check_plan_day(start_date, "start_date")
    check_plan_day(end_date, "end_date")
    if start_date and end_date and end_date < start_date:
        raise ServiceError("A cycle cannot end before it starts.", field="end_date")
    unique_name(Cycle, project.id, name, "cycle")
    _no_overlap(project, None, start_date, end_date)
    cycle = Cycle(project_id=project.id, name=name, start_date=start_date, end_date=end_date)
    db.session.add(cycle)
    db.session.flush()
    workflow_event(project, "project.cycle_created", actor_id, name)
    return cycle


def list_modules(project_id: uuid.UUID) -> list[Module]:
    return list(
        db.session.scalars(
            select(Module).where(Module.project_id == project_id).order_by(Module.name)
        )
    )


def create_module(
    project: Project, name: str, description: str = "", *, actor_id: uuid.UUID | None = None
) -> Module:
    unique_name(Module, project.id, name, "module")
    module = Module(project_id=project.id, name=name, description=description)
    db.session.add(module)
    db.session.flush()
    workflow_event(project, "project.module_created", actor_id, name)
    return module


def get_cycle(project: Project, cycle_id: uuid.UUID) -> Cycle:
    return in_project(Cycle, project, cycle_id, "cycle")


def update_cycle(
    project: Project, cycle: Cycle, actor_id: uuid.UUID | None, changes: dict[str, Any]
) -> Cycle:
    """Apply ``changes`` (``name``, ``start_date``, ``end_date``; ``None`` clears a
    date). Records ``project.cycle_updated`` with what changed."""
    _check_changes(cycle, changes, {"name", "start_date", "end_date"}, "cycle")
    start = changes.get("start_date", cycle.start_date)
    end = changes.get("end_date", cycle.end_date)
    check_plan_day(changes.get("start_date"), "start_date")
    check_plan_day(changes.get("end_date"), "end_date")
    if start and end and end < start:
        raise ServiceError(
            f"A cycle cannot end ({end.isoformat()}) before it starts ({start.isoformat()}).",
            field="end_date",
        )
    _no_overlap(project, cycle.id, start, end)
    _apply(project, cycle, changes, actor_id, "project.cycle_updated")
    return cycle


def _no_overlap(
    project: Project, cycle_id: uuid.UUID | None, start: date | None, end: date | None
) -> None:
    """Refuse dates that overlap another dated cycle of the project, as Linear and
    Plane do: a day belongs to one cycle, so "the current cycle" is one. A cycle with a
    date missing is unscheduled and overlaps nothing."""
    if not (start and end):
        return
    other = db.session.scalar(
        select(Cycle)
        .where(
            Cycle.project_id == project.id,
            Cycle.id != cycle_id if cycle_id else True,
            Cycle.start_date.is_not(None),
            Cycle.end_date.is_not(None),
            Cycle.start_date <= end,
            Cycle.end_date >= start,
        )
        .order_by(Cycle.start_date)
        .limit(1)
    )
    if other is not None:
        raise ServiceError(
            f"These dates overlap “{other.name}” ({day(other.start_date)} to "
            f"{day(other.end_date)}); a project's cycles do not overlap.",
            field="start_date",
        )


def get_module(project: Project, module_id: uuid.UUID) -> Module:
    return in_project(Module, project, module_id, "module")


def update_module(
    project: Project, module: Module, actor_id: uuid.UUID | None, changes: dict[str, Any]
) -> Module:
    """Apply ``changes`` (``name``, ``description``). Records ``project.module_updated``."""
    _check_changes(module, changes, {"name", "description"}, "module")
    if changes.get("description") is None and "description" in changes:
        changes["description"] = ""
    _apply(project, module, changes, actor_id, "project.module_updated")
    return module


def _check_changes(row, changes: dict[str, Any], fields: set[str], noun: str) -> None:
    """Refuse a field outside ``fields``; a new name is cleaned (in ``changes``) and
    must be the row's own in the project."""
    unknown = set(changes) - fields
    if unknown:
        raise ServiceError(f"These fields cannot be changed: {', '.join(sorted(unknown))}.")
    if "name" in changes:
        changes["name"] = clean_name(changes["name"], noun)
        unique_other(type(row), row, changes["name"], noun)


def _apply(
    project: Project, row, changes: dict[str, Any], actor_id: uuid.UUID | None, kind: str
) -> None:
    """Set each changed attribute and record ``kind`` with ``field -> [old, new]`` (as
    ``project.updated`` records them); nothing is recorded when nothing changed."""
    diff: dict[str, list] = {}
    for field, new in changes.items():
        old = getattr(row, field)
        if old != new:
            diff[field] = [_plain(old), _plain(new)]
            setattr(row, field, new)
    db.session.flush()
    if diff:
        workflow_event(project, kind, actor_id, row.name, changes=diff)
    db.session.flush()


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def plan_counts(project_id: uuid.UUID, column: Any) -> dict[uuid.UUID, tuple[int, int]]:
    """``{cycle or module id: (tasks, completed)}`` of the project's live tasks (not
    deleted, not archived), ``column`` being ``Task.cycle_id`` or ``Task.module_id``;
    counted in SQL, one query for the page."""
    done = func.sum(case((Task.state_category == StateCategory.COMPLETED, 1), else_=0))
    rows = db.session.execute(
        select(column, func.count(), done)
        .where(
            Task.project_id == project_id,
            column.is_not(None),
            Task.deleted_at.is_(None),
            Task.archived_at.is_(None),
        )
        .group_by(column)
    )
    return {plan_id: (total, int(completed or 0)) for plan_id, total, completed in rows}


def delete_plan(project: Project, row: Cycle | Module, actor_id: uuid.UUID | None) -> None:
    """Delete a cycle or module no task points at any more (the caller moves them out,
    each in its history); records ``project.cycle_deleted`` or ``project.module_deleted``."""
    noun = "cycle" if isinstance(row, Cycle) else "module"
    name = row.name
    db.session.delete(row)
    db.session.flush()
    workflow_event(project, f"project.{noun}_deleted", actor_id, name)
    db.session.flush()
