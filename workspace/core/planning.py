"""A project's plan: its cycles (time boxes) and modules (areas of the product) that
tasks are grouped by, each change recorded with its actor (docs/projects.md)."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy import select

from workspace.core.models import Cycle, Module, Project
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
    if start_date and end_date and end_date < start_date:
        raise ServiceError("A cycle cannot end before it starts.", field="end_date")
    unique_name(Cycle, project.id, name, "cycle")
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
    unknown = set(changes) - {"name", "start_date", "end_date"}
    if unknown:
        raise ServiceError(f"These fields cannot be changed: {', '.join(sorted(unknown))}.")
    if "name" in changes:
        changes["name"] = clean_name(changes["name"], "cycle")
        unique_other(Cycle, cycle, changes["name"], "cycle")
    start = changes.get("start_date", cycle.start_date)
    end = changes.get("end_date", cycle.end_date)
    if start and end and end < start:
        raise ServiceError(
            f"A cycle cannot end ({end.isoformat()}) before it starts ({start.isoformat()}).",
            field="end_date",
        )
    diff = _apply(cycle, changes)
    if diff:
        workflow_event(project, "project.cycle_updated", actor_id, cycle.name, changes=diff)
    db.session.flush()
    return cycle


def get_module(project: Project, module_id: uuid.UUID) -> Module:
    return in_project(Module, project, module_id, "module")


def update_module(
    project: Project, module: Module, actor_id: uuid.UUID | None, changes: dict[str, Any]
) -> Module:
    """Apply ``changes`` (``name``, ``description``). Records ``project.module_updated``."""
    unknown = set(changes) - {"name", "description"}
    if unknown:
        raise ServiceError(f"These fields cannot be changed: {', '.join(sorted(unknown))}.")
    if "name" in changes:
        changes["name"] = clean_name(changes["name"], "module")
        unique_other(Module, module, changes["name"], "module")
    if changes.get("description") is None and "description" in changes:
        changes["description"] = ""
    diff = _apply(module, changes)
    if diff:
        workflow_event(project, "project.module_updated", actor_id, module.name, changes=diff)
    db.session.flush()
    return module


def _apply(row, changes: dict[str, Any]) -> dict[str, list]:
    """Set each changed attribute; ``field -> [old, new]`` for the event (as
    ``project.updated`` records them)."""
    diff: dict[str, list] = {}
    for field, new in changes.items():
        old = getattr(row, field)
        if old != new:
            diff[field] = [_plain(old), _plain(new)]
            setattr(row, field, new)
    db.session.flush()
    return diff


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value
