"""``flask bench-data`` (workspace/benchdata/) on both databases: the rows it writes
are rows the app could have written, and the bulk tricks leave nothing behind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, inspect, select, text

from workspace.analytics import consistency
from workspace.benchdata import rows as benchdata
from workspace.core.models import Org, Project, State, Task, TaskActivity
from workspace.core.tasks import create_task, update_task
from workspace.extensions import db


@pytest.fixture
def loaded(app):
    result = app.test_cli_runner().invoke(args=["bench-data", "--tasks", "2000"])
    assert result.exit_code == 0, result.output
    return result


def _latest_state_change():
    return (
        select(func.max(TaskActivity.created_at))
        .where(TaskActivity.task_id == Task.id, TaskActivity.field == "state")
        .correlate(Task)
        .scalar_subquery()
    )


def test_biggest_org_holds_sixty_percent_and_history_is_consistent(app, loaded):
    with app.app_context():
        sizes = sorted(
            db.session.scalars(select(func.count()).select_from(Task).group_by(Task.org_id)),
            reverse=True,
        )
        assert sizes == [1200, 400, 200, 200]
        # state_entered_at: the latest state-change row, else the creation (H6's rule).
        wrong = db.session.scalar(
            select(func.count()).where(
                Task.state_entered_at != func.coalesce(_latest_state_change(), Task.created_at)
            )
        )
        assert wrong == 0
        # Each task has one "created" row and its transitions end in its category.
        assert (
            db.session.scalar(select(func.count()).where(TaskActivity.field == "created")) == 2000
        )
        last_category = (
            select(TaskActivity.new_category)
            .where(TaskActivity.task_id == Task.id)
            .order_by(TaskActivity.created_at.desc(), TaskActivity.field.desc())
            .limit(1)
            .correlate(Task)
            .scalar_subquery()
        )
        assert (
            db.session.scalar(select(func.count()).where(Task.state_category != last_category)) == 0
        )
        completed = select(func.count()).where(Task.state_category == "completed")
        assert db.session.scalar(completed.where(Task.completed_at.is_(None))) == 0
        assert (
            db.session.scalar(
                select(func.count()).where(
                    Task.state_category != "completed", Task.completed_at.is_not(None)
                )
            )
            == 0
        )
        per_task = db.session.scalar(select(func.count()).select_from(TaskActivity)) / 2000
        assert 1.5 < per_task < 3.5
        states = {
            s.id: s.category for s in db.session.scalars(select(State))
        }  # the denormalized category is the state's
        for state_id, category in db.session.execute(
            select(Task.state_id, Task.state_category).distinct()
        ):
            assert states[state_id] == category


def test_rollup_indexes_and_triggers_are_back_after_the_load(app, loaded):
    with app.app_context():
        for org_id in db.session.scalars(select(Org.id)):
            assert consistency.verify(org_id).ok
        for table in (Task.__table__, TaskActivity.__table__):
            names = {i["name"] for i in inspect(db.engine).get_indexes(table.name)}
            assert {i.name for i in table.indexes} <= names
        if db.engine.dialect.name == "sqlite":
            with db.engine.connect() as conn:
                assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
                assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        # A task written by the app afterwards: numbered after the bulk rows, counted
        # by the triggers, moved like any other.
        project = db.session.scalar(select(Project).order_by(Project.name).limit(1))
        top = db.session.scalar(
            select(func.max(Task.sequence)).where(Task.project_id == project.id)
        )
        task = create_task(project, None, title="after the load", priority="urgent")
        assert task.sequence == top + 1
        started = db.session.scalar(
            select(State.id).where(State.project_id == project.id, State.category == "started")
        )
        update_task(task, None, {"state_id": started}, at=task.created_at + timedelta(hours=1))
        db.session.commit()
        assert consistency.verify(project.org_id).ok


def test_a_failed_load_leaves_the_database_as_it_was(app, monkeypatch):
    real = benchdata.generate
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(benchdata, "CHUNK", 500)
    monkeypatch.setattr(benchdata, "generate", failing)
    result = app.test_cli_runner().invoke(args=["bench-data", "--tasks", "2000"])
    assert result.exit_code != 0 and "disk full" in str(result.exception)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Org)) == 0
        assert db.session.scalar(select(func.count()).select_from(Task)) == 0
        names = {i["name"] for i in inspect(db.engine).get_indexes("tasks")}
        assert "ix_tasks_counted" in names
        if db.engine.dialect.name == "sqlite":
            with db.engine.connect() as conn:
                assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
