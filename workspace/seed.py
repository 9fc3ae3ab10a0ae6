"""Demo and benchmark data: realistic tasks with a state-change history.

Rows are generated in Python and written with bulk inserts, which is what makes a
million tasks take minutes rather than hours. The generator walks each task through
the workflow the way people do (backlog -> todo -> in progress -> done, sometimes
cancelled), writing one activity row per transition, so flow and forecast have data.
"""

from __future__ import annotations

import random
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise

import click
from flask.cli import with_appcontext
from sqlalchemy import insert, select

from workspace.auth.passwords import set_password
from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import (
    Account,
    AccountKind,
    Cycle,
    MembershipSource,
    Module,
    Org,
    OrgRole,
    Priority,
    Project,
    ProjectMember,
    ProjectRole,
    State,
    StateCategory,
    Task,
    TaskActivity,
    TaskKind,
)
from workspace.core.orgs import create_org
from workspace.core.projects import create_cycle, create_module, create_project
from workspace.extensions import db

FIRST = [
    "Ada",
    "Grace",
    "Alan",
    "Linus",
    "Margaret",
    "Ken",
    "Barbara",
    "Dennis",
    "Frances",
    "Edsger",
    "Radia",
    "Tim",
    "Katherine",
    "John",
    "Hedy",
    "Donald",
    "Sophie",
    "Guido",
    "Anita",
    "Niklaus",
]
LAST = [
    "Lovelace",
    "Hopper",
    "Turing",
    "Torvalds",
    "Hamilton",
    "Thompson",
    "Liskov",
    "Ritchie",
    "Allen",
    "Dijkstra",
    "Perlman",
    "Berners-Lee",
    "Johnson",
    "McCarthy",
]
AGENTS = [
    ("Triage Bot", "Sorts incoming work and files bugs."),
    ("Release Agent", "Prepares release notes and closes shipped tasks."),
    ("Docs Agent", "Keeps documentation tasks moving."),
]
PROJECTS = [("Web App", "WEB"), ("Mobile", "MOB"), ("Platform", "PLAT")]
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
            at = min(now, at + timedelta(hours=rng.expovariate(1 / 60)))
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
    project: Project, rng: random.Random, cycles: int, modules: int, today: date
) -> ProjectShape:
    for i in range(cycles):
        start = today - timedelta(days=14 * (cycles - i - 1) + 7)
        create_cycle(project, f"Sprint {i + 1}", start, start + timedelta(days=13))
    for name in rng.sample(MODULES, min(modules, len(MODULES))):
        create_module(project, name)
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


@dataclass
class DemoResult:
    org_id: uuid.UUID
    owner_email: str
    password: str


def seed_demo(
    task_count: int = 2000, password: str | None = None, seed: int = 7
) -> DemoResult | None:
    """The demo org Acme; None when it exists already. The caller commits."""
    if db.session.scalar(select(Org.id).where(Org.slug == "acme")):
        return None
    rng = random.Random(seed)
    now = datetime.now(UTC)
    password = password or secrets.token_urlsafe(9)
    owner = ensure_account("owner@acme.test", "Olivia Owner", email_verified=True)
    set_password(owner, password)
    org = create_org("Acme", owner, "acme")
    people = [owner]
    for i in range(40):
        first, last = FIRST[i % len(FIRST)], LAST[(i * 7) % len(LAST)]
        account = ensure_account(
            f"{first}.{last}{i}@acme.test".lower(), f"{first} {last}", email_verified=True
        )
        add_member(org, account, OrgRole.ADMIN if i < 2 else OrgRole.MEMBER, actor_id=owner.id)
        people.append(account)
    agents = []
    for name, description in AGENTS:
        agent = Account(
            email=f"{name.lower().replace(' ', '-')}@agents.acme.test",
            name=name,
            kind=AccountKind.AGENT,
            description=description,
            email_verified=True,
        )
        db.session.add(agent)
        db.session.flush()
        add_member(org, agent, OrgRole.MEMBER, actor_id=owner.id)
        agents.append(agent)
    per_project = [task_count // len(PROJECTS)] * len(PROJECTS)
    per_project[0] += task_count - sum(per_project)
    for (name, identifier), count in zip(PROJECTS, per_project, strict=True):
        project = create_project(org.id, owner.id, name, identifier, f"The {name} team's work.")
        team = rng.sample(people[1:], 14) + agents
        for account in team:
            db.session.add(
                ProjectMember(
                    project_id=project.id,
                    account_id=account.id,
                    role=rng.choice(
                        [ProjectRole.MEMBER] * 4 + [ProjectRole.VIEWER, ProjectRole.COMMENTER]
                    ),
                    source=MembershipSource.MANUAL,
                )
            )
        shape = project_shape(project, rng, cycles=6, modules=4, today=now.date())
        assignees = [a.id for a in team] + [owner.id]
        task_rows, activity_rows = generate_tasks(rng, shape, count, assignees, now)
        write_rows(task_rows, activity_rows)
        project.next_sequence = shape.next_sequence
    db.session.flush()
    return DemoResult(org_id=org.id, owner_email=owner.email, password=password)


@click.command("bench-data")
@with_appcontext
@click.option(
    "--tasks", "task_count", type=click.IntRange(1), required=True, help="How many tasks."
)
@click.option("--seed", default=11, show_default=True)
def bench_data_command(task_count: int, seed: int) -> None:
    """Bulk-generate tasks for benchmarks into orgs named bench-*.

    The biggest org gets ~60% of the rows (as a large customer would); a few percent
    are archived, draft or deleted so scope filters have something to exclude.
    """
    rng = random.Random(seed)
    now = datetime.now(UTC)
    started = time.monotonic()
    owner = ensure_account("bench-owner@bench.test", "Bench Owner", email_verified=True)
    shares = [0.6, 0.2, 0.1, 0.1]
    done = 0
    for index, share in enumerate(shares):
        count = int(task_count * share) if index < len(shares) - 1 else task_count - done
        slug = f"bench-{index + 1}-{uuid.uuid4().hex[:6]}"
        org = create_org(f"Bench {index + 1}", owner, slug)
        members = [owner.id]
        for i in range(60):
            account = ensure_account(f"member{i}@{slug}.test", f"Member {i}")
            add_member(org, account)
            members.append(account.id)
        projects = [
            create_project(org.id, owner.id, f"Project {p + 1}", f"P{p + 1}") for p in range(8)
        ]
        shapes = [project_shape(p, rng, cycles=8, modules=5, today=now.date()) for p in projects]
        db.session.commit()
        remaining = count
        while remaining > 0:
            chunk = min(20_000, remaining)
            shape = rng.choice(shapes)
            task_rows, activity_rows = generate_tasks(
                rng, shape, chunk, members, now, days=365, extras=True
            )
            write_rows(task_rows, activity_rows)
            db.session.commit()
            remaining -= chunk
        for project, shape in zip(projects, shapes, strict=True):
            project.next_sequence = shape.next_sequence
        db.session.commit()
        done += count
        click.echo(f"{org.slug}: {count} tasks ({time.monotonic() - started:.0f}s)")
    click.echo(f"Generated {task_count} tasks in {time.monotonic() - started:.0f}s")
