"""Flow in one read: ``tasks.state_entered_at`` stays exactly what the history says
(the latest ``state`` row, else creation) through every way a state changes, so flow
answers as the history-based definition did (docs/analytics.md#flow)."""

from __future__ import annotations

import importlib.util
import random
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import event, select, text, update

from workspace import ROOT
from workspace.analytics import rollups
from workspace.analytics.scope import make_scope
from workspace.core import tasks as task_service
from workspace.core import workflow
from workspace.core.models import Org, Project, StateCategory, Task, TaskActivity
from workspace.core.projects import create_project
from workspace.extensions import db

OPEN = ("backlog", "unstarted", "started")


def _history_entered() -> dict[uuid.UUID, datetime]:
    """Per task, the old definition: its latest state change, else its creation."""
    entered = {t.id: t.created_at for t in db.session.scalars(select(Task))}
    for task_id, at in db.session.execute(
        select(TaskActivity.task_id, TaskActivity.created_at).where(TaskActivity.field == "state")
    ):
        entered[task_id] = max(entered[task_id], at) if task_id in entered else at
    return entered


def _history_flow(org_id: uuid.UUID, now: datetime, project_id=None) -> dict[str, tuple]:
    """Flow computed in Python from the history alone, independent of the column."""
    entered = _history_entered()
    ages: dict[str, list[float]] = {c: [] for c in OPEN}
    for t in db.session.scalars(select(Task).where(Task.org_id == org_id)):
        counted = (
            t.state_category != "triage"
            and not t.is_draft
            and t.archived_at is None
            and t.deleted_at is None
        )
        if counted and t.state_category in OPEN and project_id in (None, t.project_id):
            ages[t.state_category].append((now - entered[t.id]).total_seconds() / 86400)
    return {c: (len(a), round(sum(a) / len(a), 2) if a else 0.0) for c, a in ages.items()}


def _build(owner_id: uuid.UUID, org_id: uuid.UUID, rng: random.Random) -> tuple[Project, Project]:
    """Two projects of tasks with real histories: none, one or several changes,
    single and bulk edits, a recategorized state, archived, deleted and triage tasks."""
    start = datetime.now(UTC) - timedelta(days=40)
    projects = []
    for name, ident in (("Web", "WEB"), ("Ops", "OPS")):
        project = create_project(org_id, owner_id, name, ident)
        states = workflow.list_states(project.id)
        tasks = [
            task_service.create_task(
                project,
                owner_id,
                title=f"Task {i}",
                state_id=rng.choice(states).id,
                created_at=start + timedelta(hours=rng.uniform(0, 200)),
            )
            for i in range(30)
        ]
        for task in tasks:
            at = task.created_at
            for _ in range(rng.choice([0, 0, 1, 2, 4])):
                at += timedelta(hours=rng.uniform(1, 90))
                task_service.update_task(task, owner_id, {"state_id": rng.choice(states).id}, at=at)
            if rng.random() < 0.3:  # a change that is not a state change
                task_service.update_task(
                    task, owner_id, {"priority": "high"}, at=at + timedelta(hours=3)
                )
        by_name = {s.name: s for s in states}
        task_service.bulk_update_tasks(
            project, owner_id, [t.id for t in tasks[:8]], {"state_id": by_name["In Review"].id}
        )
        task_service.update_task(tasks[9], owner_id, {"archived": True})
        task_service.delete_task(tasks[10], owner_id)
        db.session.flush()
        projects.append(project)
    # A state moves category: every live task in it gets a history row and a new time.
    web_review = next(s for s in workflow.list_states(projects[0].id) if s.name == "In Review")
    workflow.update_state(projects[0], web_review, owner_id, category=StateCategory.UNSTARTED)
    db.session.commit()
    return projects[0], projects[1]


def test_state_entered_at_mirrors_the_history_through_every_kind_of_change(app, acme):
    with app.app_context():
        _build(acme.owner_id, acme.org_id, random.Random(11))
        expected = _history_entered()
        got = dict(db.session.execute(select(Task.id, Task.state_entered_at)).all())
        assert got == expected
        # The recategorized state's live tasks entered it just now, not at creation.
        moved = db.session.scalars(
            select(Task).join(TaskActivity, TaskActivity.task_id == Task.id)
            .where(TaskActivity.old_value == TaskActivity.new_value, Task.deleted_at.is_(None))
        ).all()  # fmt: skip
        assert moved and all(t.state_entered_at > t.created_at for t in moved)


def test_flow_equals_the_history_based_definition(app, acme):
    with app.app_context():
        web, _ = _build(acme.owner_id, acme.org_id, random.Random(12))
        org = db.session.get(Org, acme.org_id)
        now = datetime.now(UTC) + timedelta(days=3)
        for project_id in (None, web.id):
            got = rollups.flow(make_scope(org, project_id, now=now))
            want = _history_flow(acme.org_id, now, project_id)
            assert sum(w for w, _ in want.values()) == got["total_wip"] > 0
            for row in got["categories"]:
                wip, age = want[row["category"]]
                assert row["wip"] == wip, row
                assert abs(row["avg_age_days"] - age) <= 0.011, (row, age)


def test_a_state_change_writes_its_time_in_the_same_update(app, acme):
    """One UPDATE sets the state, its category and when it was entered: no window in
    which a reader sees the new state with the old time."""
    with app.app_context():
        project = create_project(acme.org_id, acme.owner_id, "Solo", "SOLO")
        states = {s.name: s for s in workflow.list_states(project.id)}
        task = task_service.create_task(project, acme.owner_id, title="One")
        db.session.commit()
        updates: list[str] = []

        def grab(conn, cursor, statement, parameters, context, executemany):
            head = statement.split("WHERE")[0]
            if head.lstrip().startswith("UPDATE tasks SET") and "state_id" in head:
                updates.append(head)

        event.listen(db.engine, "before_cursor_execute", grab)
        try:
            task_service.update_task(task, acme.owner_id, {"state_id": states["Done"].id})
        finally:
            event.remove(db.engine, "before_cursor_execute", grab)
        assert len(updates) == 1
        assert "state_category" in updates[0] and "state_entered_at" in updates[0]
        assert task.state_entered_at == task.completed_at


def _migration():
    path = ROOT / "migrations" / "versions" / "0006_state_entered_at.py"
    spec = importlib.util.spec_from_file_location("m0006", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_migration_backfill_restores_the_history_definition(app, acme):
    with app.app_context():
        _build(acme.owner_id, acme.org_id, random.Random(13))
        expected = _history_entered()
        # Forget every value, then run the migration's own backfill statement.
        db.session.execute(update(Task).values(state_entered_at=datetime(2000, 1, 1)))
        migration = _migration()
        backfill = (
            migration.POSTGRES_BACKFILL
            if db.engine.dialect.name == "postgresql"
            else migration.SQLITE_BACKFILL
        )
        db.session.execute(text(backfill))
        db.session.commit()
        got = dict(db.session.execute(select(Task.id, Task.state_entered_at)).all())
        assert got == expected
