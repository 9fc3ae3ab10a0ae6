"""Acme with two projects and a handful of tasks whose attributes tell the filter
layers apart, a second Acme member, and Globex (another org)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from tests.conftest import OrgFixture, add_person, make_org

# Re-exported for the dashboard tests; they live in tests/factories.py.
from tests.factories import add_widget, new_dashboard  # noqa: F401
from workspace.core.models import Project, State
from workspace.core.projects import create_project
from workspace.core.tasks import create_task
from workspace.extensions import db

#: (project, title, state, priority, kind)
TASKS = [
    ("WEB", "Login fails", "Todo", "high", "bug"),
    ("WEB", "Add SSO", "In Progress", "high", "feature"),
    ("WEB", "Typo on page", "Done", "low", "bug"),
    ("WEB", "Old crash", "Done", "high", "bug"),
    ("OPS", "Disk full", "Todo", "high", "bug"),
    ("OPS", "Rotate keys", "Backlog", "medium", "task"),
]


@dataclass
class World:
    acme: OrgFixture
    member: OrgFixture
    globex: OrgFixture
    web_id: uuid.UUID
    ops_id: uuid.UUID

    def url(self, path: str = "") -> str:
        return self.acme.url(path)


def seed_tasks(org: OrgFixture) -> tuple[uuid.UUID, uuid.UUID]:
    projects = {
        ident: create_project(org.org_id, org.owner_id, name, ident)
        for ident, name in (("WEB", "Web App"), ("OPS", "Operations"))
    }
    db.session.flush()
    for ident, title, state_name, priority, kind in TASKS:
        project = projects[ident]
        state = db.session.scalar(
            select(State).where(State.project_id == project.id, State.name == state_name)
        )
        create_task(
            project, org.owner_id, title=title, state_id=state.id, priority=priority, kind=kind
        )
    db.session.commit()
    return projects["WEB"].id, projects["OPS"].id


@pytest.fixture
def world(app) -> World:
    acme = make_org(app, "Acme", "owner@acme.test")
    member = add_person(app, acme.org_id, "mia@acme.test")
    globex = make_org(app, "Globex", "owner@globex.test")
    with app.app_context():
        web_id, ops_id = seed_tasks(acme)
        # Globex has a project with the same identifier: it must never count for Acme.
        project = create_project(globex.org_id, globex.owner_id, "Web App", "WEB")
        create_task(project, globex.owner_id, title="Not ours", priority="high", kind="bug")
        db.session.commit()
        assert db.session.get(Project, web_id) is not None
    return World(acme=acme, member=member, globex=globex, web_id=web_id, ops_id=ops_id)
