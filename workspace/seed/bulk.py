"""Bulk task rows: what the demo, ``flask bench-data`` (workspace/benchdata/) and the
analytics tests generate when they need many tasks with a history.

Rows are generated in Python and written with bulk inserts, which is what makes a
million tasks take minutes rather than hours. The generator walks each task through
the workflow the way people do (backlog -> todo -> in progress -> done, sometimes
cancelled), writing one activity row per transition, so flow and forecast have data.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import pairwise

from sqlalchemy import insert, select

from workspace.core.models import (
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
from workspace.core.planning import create_cycle, create_module
from workspace.extensions import db

MODULES = ["Auth", "Billing", "Search", "Onboarding", "Reporting"]
VERBS = ["Fix", "Add", "Refactor", "Document", "Investigate", "Design", "Ship", "Review"]
NOUNS = [
    "login flow",
    "invoice export",
    "search ranking",
    "push notifications",
    "CSV import",
    "rate limiter",
    "audit log",
    "dark mode",
    "settings page",
    "API pagination",
    "webhook retries",
    "SSO button",
    "empty states",
    "chart tooltips",
    "task board",
]

_PRIORITY_WEIGHTS = [
    (Priority.URGENT, 5),
    (Priority.HIGH, 15),
    (Priority.MEDIUM, 35),
    (Priority.LOW, 25),
    (Priority.NONE, 20),
]
_KIND_WEIGHTS = [
    (TaskKind.TASK, 50),
    (TaskKind.BUG, 25),
    (TaskKind.FEATURE, 20),
    (TaskKind.EPIC, 5),
]
# Where a task ends up: mostly done or in flight; a little cancelled or still in triage.
_FINAL_WEIGHTS = [
    (StateCategory.COMPLETED, 40),
    (StateCategory.STARTED, 18),
    (StateCategory.UNSTARTED, 15),
    (StateCategory.BACKLOG, 17),
    (StateCategory.CANCELLED, 6),
    (StateCategory.TRIAGE, 4),
]
_PATH = [
    StateCategory.BACKLOG,
    StateCategory.UNSTARTED,
    StateCategory.STARTED,
    StateCategory.COMPLETED,
]


def _pick(rng: random.Random, weighted):
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights)[0]


@dataclass
class ProjectShape:
    project_id: uuid.UUID
    org_id: uuid.UUID
    states: dict[str, list[State]]
    cycle_ids: list[uuid.UUID]
    module_ids: list[uuid.UUID]
    next_sequence: int = 1


def generate_tasks(
    rng: random.Random,
    shape: ProjectShape,
    count: int,
    assignee_ids: list[uuid.UUID],
    now: datetime,
    days: int = 120,
    actor_ids: list[uuid.UUID] | None = None,
    extras: bool = False,
) -> tuple[list[dict], list[dict]]:
    """``count`` task rows and their activity rows for one project."""
    actors = actor_ids or assignee_ids
    task_rows, activity_rows = [], []
    for _ in range(count):
        task_id = uuid.uuid4()
        created = now - timedelta(days=rng.uniform(0, days))
        final = _pick(rng, _FINAL_WEIGHTS)
        actor = rng.choice(actors)
        if final == StateCategory.TRIAGE:
            steps = [StateCategory.TRIAGE]
        elif final == StateCategory.CANCELLED:
            steps = [*_PATH[: rng.randint(1, 3)], StateCategory.CANCELLED]
        else:
            steps = _PATH[: _PATH.index(final) + 1]
            steps = steps[rng.randint(0, max(0, len(steps) - 2)) :] if len(steps) > 1 else steps
        states = [rng.choice(shape.states[c]) for c in steps]
        at = created
        activity_rows.append(
            dict(
                id=uuid.uuid4(),
                org_id=shape.org_id,
                task_id=task_id,
                actor_id=actor,
                field="created",
                old_value=None,
                new_value=None,
                old_category=None,
                new_category=states[0].category,
                created_at=at,
            )
        )
        for prev, nxt in pairwise(states):
            step = at + timedelta(hours=rng.expovariate(1 / 60))
            # A move that would land after now lands before it instead, the further the
            # step overshot the sooner: clamping to now piled young tasks' moves into
            # one instant (a spike of completions at seed time in every chart over
            # time). No extra draw, so the rest of the sequence is unchanged.
            if step > now:
                step = at + (now - at) * ((now - at) / (step - at))
            at = step
            activity_rows.append(
                dict(
                    id=uuid.uuid4(),
                    org_id=shape.org_id,
                    task_id=task_id,
                    actor_id=rng.choice(actors),
                    field="state",
                    old_value=prev.name,
                    new_value=nxt.name,
                    old_category=prev.category,
                    new_category=nxt.category,
                    created_at=at,
                )
            )
        state = states[-1]
        due = None
        if rng.random() < 0.6:
            due = (created + timedelta(days=rng.randint(3, 60))).date()
        task_rows.append(
            dict(
                id=task_id,
                org_id=shape.org_id,
                project_id=shape.project_id,
                sequence=shape.next_sequence,
                title=f"{rng.choice(VERBS)} {rng.choice(NOUNS)}",
                description="",
                state_id=state.id,
                state_category=state.category,
                priority=_pick(rng, _PRIORITY_WEIGHTS),
                kind=_pick(rng, _KIND_WEIGHTS),
                assignee_id=rng.choice(assignee_ids) if rng.random() < 0.85 else None,
                cycle_id=rng.choice(shape.cycle_ids)
                if shape.cycle_ids and rng.random() < 0.7
                else None,
                module_id=rng.choice(shape.module_ids)
                if shape.module_ids and rng.random() < 0.6
                else None,
                created_by_id=actor,
                due_date=due,
                is_draft=extras and rng.random() < 0.01,
                created_at=created,
                updated_at=at,
                # The last state change written above, else the creation.
                state_entered_at=at,
                completed_at=at if state.category == StateCategory.COMPLETED else None,
                archived_at=at if extras and rng.random() < 0.03 else None,
                deleted_at=at if extras and rng.random() < 0.01 else None,
            )
        )
        shape.next_sequence += 1
    return task_rows, activity_rows


def write_rows(task_rows: list[dict], activity_rows: list[dict], batch: int = 5000) -> None:
    # Core executemany on the tables with the same keys in every row: one statement
    # per batch (the ORM bulk path split runs of differing keys into single rows).
    for i in range(0, len(task_rows), batch):
        db.session.execute(insert(Task.__table__), task_rows[i : i + batch])
    for i in range(0, len(activity_rows), batch):
        db.session.execute(insert(TaskActivity.__table__), activity_rows[i : i + batch])


def project_shape(
    project: Project,
    rng: random.Random,
    cycles: int,
    modules: int,
    today: date,
    *,
    actor_id: uuid.UUID | None = None,
) -> ProjectShape:
    for i in range(cycles):
        start = today - timedelta(days=14 * (cycles - i - 1) + 7)
        create_cycle(
            project, f"Sprint {i + 1}", start, start + timedelta(days=13), actor_id=actor_id
        )
    for name in rng.sample(MODULES, min(modules, len(MODULES))):
        create_module(project, name, actor_id=actor_id)
    db.session.flush()
    states: dict[str, list[State]] = {}
    for state in db.session.scalars(select(State).where(State.project_id == project.id)):
        states.setdefault(state.category, []).append(state)
    return ProjectShape(
        project_id=project.id,
        org_id=project.org_id,
        states=states,
        cycle_ids=list(db.session.scalars(select(Cycle.id).where(Cycle.project_id == project.id))),
        module_ids=list(
            db.session.scalars(select(Module.id).where(Module.project_id == project.id))
        ),
        next_sequence=project.next_sequence,
    )
