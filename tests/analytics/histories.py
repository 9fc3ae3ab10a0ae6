"""Tasks given exactly a written status history, for the flow tests (a test module
may not import another, tests/test_conventions.py)."""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime

from sqlalchemy import delete, update

from tests.factories import new_task, setup_project, state_in
from workspace.core.models import Org, Task, TaskActivity
from workspace.extensions import db


def build_histories(
    app, client, org, histories: dict[str, list[tuple[datetime, str]]], zone: str = "UTC"
) -> dict[str, str]:
    """The tasks of ``histories`` (name: [(moment, category), ...], creation first, the
    last is now) made through the API in their final state, then given exactly their
    written history: the API's state rows deleted in one statement (a purge of several
    rows of one task), the written ones added, the task's times set. Returns the ids."""
    project, states = setup_project(client, org)
    ids = {}
    for name, history in histories.items():
        task = new_task(client, org, project, title=name, state_id=state_in(states, history[-1][1]))
        ids[name] = task["id"]
    with app.app_context():
        db.session.get(Org, org.org_id).timezone = zone
        for name, history in histories.items():
            task_id = uuid.UUID(ids[name])
            db.session.execute(
                delete(TaskActivity).where(
                    TaskActivity.task_id == task_id, TaskActivity.field == "state"
                )
            )
            for (_, old), (moment, new) in itertools.pairwise(history):
                db.session.add(
                    TaskActivity(
                        org_id=org.org_id,
                        task_id=task_id,
                        field="state",
                        old_category=old,
                        new_category=new,
                        created_at=moment,
                    )
                )
            final_at, final = history[-1]
            db.session.execute(
                update(Task)
                .where(Task.id == task_id)
                .values(
                    created_at=history[0][0],
                    state_entered_at=final_at,
                    completed_at=final_at if final == "completed" else None,
                )
            )
        db.session.commit()
    return ids
