"""The rows ``flask bench-data`` writes: the orgs, members and projects made through
the services (:func:`plan_orgs`), then the tasks and their state-change history
generated as text tuples both databases accept (:func:`generate`), in chunks."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import click

from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import Task
from workspace.core.orgs import create_org
from workspace.core.projects import create_project
from workspace.extensions import db
from workspace.seed.bulk import NOUNS, VERBS, project_shape

SHARES = (0.6, 0.2, 0.1, 0.1)
MEMBERS = 60
PROJECTS = 8
CHUNK = 50_000
OWNER_EMAIL = "bench-owner@bench.test"

# Where a task ends up (mostly done or in flight), then a path through the workflow.
FINALS = ("completed", "started", "unstarted", "backlog", "cancelled", "triage")
FINAL_WEIGHTS = (40, 18, 15, 17, 6, 4)
PATH = ("backlog", "unstarted", "started", "completed")
PRIORITIES = ("urgent", "high", "medium", "low", "none")
PRIORITY_WEIGHTS = (5, 15, 35, 25, 20)
KINDS = ("task", "bug", "feature", "epic")
KIND_WEIGHTS = (50, 25, 20, 5)

TASK_COLUMNS = [
    "id",
    "org_id",
    "project_id",
    "sequence",
    "title",
    "description",
    "state_id",
    "state_category",
    "priority",
    "kind",
    "assignee_id",
    "cycle_id",
    "module_id",
    "created_by_id",
    "due_date",
    "is_draft",
    "created_at",
    "updated_at",
    "completed_at",
    "archived_at",
    "deleted_at",
]


def task_columns() -> list[str]:
    # H6's state_entered_at (migration 0006) is filled when the model has it.
    extra = ["state_entered_at"] if "state_entered_at" in Task.__table__.c else []
    unknown = [
        c.name
        for c in Task.__table__.c
        if c.name not in TASK_COLUMNS + extra and not c.nullable and c.server_default is None
    ]
    if unknown:
        raise click.ClickException(f"bench-data does not know how to fill tasks.{unknown}.")
    return TASK_COLUMNS + extra


@dataclass
class ProjectPlan:
    """What rows of one project reference, as the strings both databases accept
    (UUIDs as 32 hex digits, which PostgreSQL's uuid input takes as well)."""

    id: str
    org_id: str
    states: dict[str, list[tuple[str, str]]]  # category -> [(state id, name)]
    cycles: list[str]
    modules: list[str]
    next_sequence: int = 1


@dataclass
class OrgPlan:
    slug: str
    org_id: str
    tasks: int
    members: list[str]
    projects: list[ProjectPlan] = field(default_factory=list)


class Clock:
    """Epoch seconds to the naive-UTC text both databases store and parse."""

    def __init__(self) -> None:
        self._days: dict[int, str] = {}
        self._epoch = date(1970, 1, 1)

    def day(self, index: int) -> str:
        found = self._days.get(index)
        if found is None:
            found = self._days[index] = (self._epoch + timedelta(days=index)).isoformat()
        return found

    def stamp(self, t: float) -> str:
        whole = int(t)
        day, sec = divmod(whole, 86400)
        hours, rest = divmod(sec, 3600)
        minutes, seconds = divmod(rest, 60)
        micro = int((t - whole) * 1_000_000)
        return f"{self.day(day)} {hours:02d}:{minutes:02d}:{seconds:02d}.{micro:06d}"


CLOCK = Clock()
TITLES = [f"{verb} {noun}" for verb in VERBS for noun in NOUNS]


def generate(
    rng: random.Random,
    org: OrgPlan,
    count: int,
    now: float,
    *,
    null: Any,
    with_entered: bool,
    days: int = 365,
) -> tuple[list[tuple], list[tuple]]:
    """``count`` task rows of ``org`` (random projects) and their activity rows, as
    tuples of text in TASK_COLUMNS / ACTIVITY_COLUMNS order; ``null`` stands for NULL."""
    clock = CLOCK
    bits, rand, uniform, expo = rng.getrandbits, rng.random, rng.uniform, rng.expovariate
    choice, randint = rng.choice, rng.randint
    finals = rng.choices(FINALS, FINAL_WEIGHTS, k=count)
    priorities = rng.choices(PRIORITIES, PRIORITY_WEIGHTS, k=count)
    kinds = rng.choices(KINDS, KIND_WEIGHTS, k=count)
    members, projects, org_id = org.members, org.projects, org.org_id
    tasks, activity = [], []
    for i in range(count):
        project = choice(projects)
        task_id = f"{bits(128):032x}"
        created = now - uniform(0, days * 86400)
        final = finals[i]
        if final == "triage":
            steps = ["triage"]
        elif final == "cancelled":
            steps = [*PATH[: randint(1, 3)], "cancelled"]
        else:
            end = PATH.index(final) + 1
            steps = list(PATH[randint(0, max(0, end - 2)) : end]) if end > 1 else ["backlog"]
        states = [choice(project.states[c]) for c in steps]
        actor = choice(members)
        activity.append(
            (f"{bits(128):032x}", org_id, task_id, actor, "created", null, null, null, steps[0],
             clock.stamp(created))
        )  # fmt: skip
        at = created
        for k in range(1, len(steps)):
            # ~60 hours per step on average; near "now", halfway there: never later,
            # never two steps at one instant.
            at += min(expo(1 / 216_000), (now - at) / 2)
            activity.append(
                (f"{bits(128):032x}", org_id, task_id, choice(members), "state",
                 states[k - 1][1], states[k][1], steps[k - 1], steps[k], clock.stamp(at))
            )  # fmt: skip
        category = steps[-1]
        at_text = clock.stamp(at)
        created_text = clock.stamp(created)
        due = clock.day(int(created // 86400) + randint(3, 60)) if rand() < 0.6 else null
        row = (
            task_id, org_id, project.id, str(project.next_sequence), choice(TITLES), "",
            states[-1][0], category, priorities[i], kinds[i],
            choice(members) if rand() < 0.85 else null,
            choice(project.cycles) if rand() < 0.7 else null,
            choice(project.modules) if rand() < 0.6 else null,
            actor, due, "1" if rand() < 0.01 else "0", created_text, at_text,
            at_text if category == "completed" else null,
            at_text if rand() < 0.03 else null,
            at_text if rand() < 0.01 else null,
        )  # fmt: skip
        project.next_sequence += 1
        tasks.append((*row, at_text) if with_entered else row)
    return tasks, activity


def plan_orgs(task_count: int, rng: random.Random, today: date) -> list[OrgPlan]:
    """The orgs, their members and projects, made through the services."""
    owner = ensure_account(OWNER_EMAIL, "Bench Owner", email_verified=True)
    plans, done = [], 0
    for index, share in enumerate(SHARES):
        count = int(task_count * share) if index < len(SHARES) - 1 else task_count - done
        done += count
        slug = f"bench-{index + 1}-{uuid.uuid4().hex[:6]}"
        org = create_org(f"Bench {index + 1}", owner, slug)
        members = [owner.id]
        for i in range(MEMBERS):
            account = ensure_account(f"member{i}@{slug}.test", f"Member {i}")
            add_member(org, account)
            members.append(account.id)
        plan = OrgPlan(slug=slug, org_id=org.id.hex, tasks=count, members=[m.hex for m in members])
        for p in range(PROJECTS):
            project = create_project(org.id, owner.id, f"Project {p + 1}", f"P{p + 1}")
            shape = project_shape(project, rng, cycles=8, modules=5, today=today)
            states: dict[str, list[tuple[str, str]]] = {}
            for category, rows in shape.states.items():
                states[str(category)] = [(s.id.hex, _copy_text(s.name)) for s in rows]
            plan.projects.append(
                ProjectPlan(
                    id=project.id.hex,
                    org_id=org.id.hex,
                    states=states,
                    cycles=[c.hex for c in shape.cycle_ids],
                    modules=[m.hex for m in shape.module_ids],
                    next_sequence=shape.next_sequence,
                )
            )
        plans.append(plan)
    db.session.flush()
    return plans


def _copy_text(value: str) -> str:
    # COPY's text format: these four would end a field or a row early.
    for raw, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        value = value.replace(raw, escaped)
    return value


def chunks(
    plans: list[OrgPlan], rng: random.Random, now: float, null: Any, with_entered: bool
) -> Iterator[tuple[OrgPlan, list[tuple], list[tuple]]]:
    for plan in plans:
        remaining = plan.tasks
        while remaining > 0:
            size = min(CHUNK, remaining)
            yield plan, *generate(rng, plan, size, now, null=null, with_entered=with_entered)
            remaining -= size
