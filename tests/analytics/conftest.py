"""A generated dataset for analytics tests: two projects of Acme with people, an agent,
cycles, modules and a history, plus tasks the scope must ignore (triage, drafts,
archived, deleted) and a second org whose tasks must never count."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from tests.conftest import OrgFixture, make_org
from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import Account, AccountKind, Org, Task
from workspace.core.planning import create_cycle
from workspace.core.projects import create_project
from workspace.extensions import db
from workspace.seed.bulk import generate_tasks, project_shape, write_rows


@dataclass
class Dataset:
    org: OrgFixture
    other: OrgFixture
    project_ids: list[uuid.UUID]
    agent_id: uuid.UUID
    people: list[uuid.UUID] = field(default_factory=list)

    def url(self, path: str) -> str:
        return self.org.url(path)


def _fill_org(
    org_id: uuid.UUID, owner_id: uuid.UUID, rng: random.Random, tasks: int, prefix: str
) -> tuple[list[uuid.UUID], uuid.UUID, list[uuid.UUID]]:
    org = db.session.get(Org, org_id)
    people = [owner_id]
    for i in range(5):
        account = ensure_account(
            f"person{i}@{prefix}.test", f"Person {i} {prefix.title()}", email_verified=True
        )
        add_member(org, account)
        people.append(account.id)
    agent = Account(
        email=f"bot@agents.{prefix}.test",
        name=f"{prefix.title()} Bot",
        kind=AccountKind.AGENT,
        email_verified=True,
    )
    db.session.add(agent)
    db.session.flush()
    add_member(org, agent)
    now = datetime.now(UTC)
    project_ids = []
    for name, ident in (("Web App", "WEB"), ("Mobile", "MOB")):
        project = create_project(org_id, owner_id, name, ident)
        shape = project_shape(project, rng, cycles=3, modules=2, today=now.date())
        # A cycle with no tasks: scatter must still list it, with zeros.
        create_cycle(project, "Empty sprint", None, None)
        rows, activity = generate_tasks(
            rng, shape, tasks, [*people, agent.id], now, days=90, extras=True
        )
        # Due dates around today so "overdue" has both sides to get wrong.
        for row in rows:
            if row["due_date"] is not None:
                row["due_date"] = now.date() + timedelta(days=rng.randint(-20, 20))
        write_rows(rows, activity)
        project.next_sequence = shape.next_sequence
        project_ids.append(project.id)
    db.session.commit()
    return project_ids, agent.id, people


@pytest.fixture
def dataset(app) -> Dataset:
    acme = make_org(app, "Acme", "owner@acme.test")
    globex = make_org(app, "Globex", "owner@globex.test")
    rng = random.Random(20261122)
    with app.app_context():
        project_ids, agent_id, people = _fill_org(acme.org_id, acme.owner_id, rng, 260, "acme")
        _fill_org(globex.org_id, globex.owner_id, rng, 60, "globex")
        # Sanity: the generator produced every kind of task the scope must exclude.
        rows = db.session.execute(
            select(Task.state_category, Task.is_draft, Task.archived_at, Task.deleted_at).where(
                Task.org_id == acme.org_id
            )
        )
        rows = rows.all()
        assert any(r[0] == "triage" for r in rows) and any(r[1] for r in rows)
        assert any(r[2] for r in rows) and any(r[3] for r in rows)
    return Dataset(acme, globex, project_ids, agent_id, people)
