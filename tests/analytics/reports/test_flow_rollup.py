"""Flow over time's maintained rollups (migrations 0021 and 0028,
docs/analytics.md#flow-over-time): the moves per hour and day, each completion's cycle
time and their histogram per week equal a scan of the history
after every kind of write, ``flask analytics verify --repair`` restores them, and the
answers read from them equal the answers read from the history (a PQL filter makes
the endpoints read the history)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, select, text, update

from tests.analytics.histories import build_histories
from tests.factories import (
    create_project,
    login,
    make_org,
    new_task,
    rollups_consistent,
    setup_project,
    state_in,
)
from workspace.analytics import consistency, cycle_rollup, cycle_weeks, flow_rollup, flow_time
from workspace.core import workflow
from workspace.core.models import Project, State, Task, TaskActivity
from workspace.core.models.projects import StateCategory
from workspace.extensions import db

TABLES = (flow_rollup.task_flow_hours, flow_rollup.task_flow_days, cycle_rollup.task_cycle_times)


def at(day: int, hour: int = 12) -> datetime:
    """A moment of November 2026 in UTC."""
    return datetime(2026, 11, day, hour, tzinfo=UTC)


#: Each task's history as (moment, category), creation first; the last is now.
HISTORIES = {
    "mon-thu": [(at(2, 9), "backlog"), (at(2), "started"), (at(5), "completed")],
    "restarted": [
        (at(1), "unstarted"),
        (at(3), "started"),
        (at(4), "unstarted"),
        (at(6), "started"),
        (at(8, 0), "completed"),
    ],
    "no-start": [(at(2), "backlog"), (at(8), "completed")],
    "born-started": [(at(9, 6), "started"), (at(10, 12), "completed")],
    "open": [(at(3), "backlog"), (at(4, 23), "unstarted")],
    "cancelled": [(at(1), "started"), (at(6), "cancelled")],
    "old-done": [(at(1, 1), "started"), (at(1, 2), "completed")],
}


def _build(app, client, org, zone: str = "UTC") -> None:
    """The tasks of HISTORIES with exactly their written history (histories.py)."""
    return build_histories(app, client, org, HISTORIES, zone)


def _rows(app) -> int:
    with app.app_context():
        return sum(db.session.scalar(select(text("count(*)")).select_from(t)) or 0 for t in TABLES)


def _differences(app) -> list[str]:
    """The rollups of this revision that differ from their scan, with both sides."""
    found = []
    with app.app_context():
        for rollup in (*flow_rollup.ROLLUPS, *cycle_rollup.ROLLUPS, *cycle_weeks.ROLLUPS):
            if consistency._compare(rollup, None, consistency.Verification()):
                scan = sorted(map(str, db.session.execute(rollup.scan(None))))
                held = sorted(map(str, db.session.execute(select(rollup.table))))
                found.append(f"{rollup.table.name}: scan {scan} held {held}")
        db.session.rollback()
    return found


def test_rollups_equal_the_scan_after_every_kind_of_write(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    started = state_in(states, "started")
    done, cancelled = state_in(states, "completed"), state_in(states, "cancelled")

    def patch(task_id: str, **body) -> None:
        resp = client.patch(org.url(f"/tasks/{task_id}"), json=body, headers=org.headers)
        assert resp.status_code == 200, resp.get_json()

    tasks = [new_task(client, org, project, title=f"T{i}")["id"] for i in range(6)]
    born_started = new_task(client, org, project, title="B", state_id=started)["id"]
    assert _differences(app) == [] and _rows(app) > 0
    # State changes: started, done, reopened and done again, cancelled.
    for task_id in tasks[:4]:
        patch(task_id, state_id=started)
        patch(task_id, state_id=done)
    patch(tasks[0], state_id=started)
    patch(tasks[0], state_id=done)
    patch(tasks[4], state_id=cancelled)
    patch(born_started, state_id=done)
    assert _differences(app) == []
    # Archived and restored; soft deleted; deleted for good (as a purge would).
    patch(tasks[1], archived=True)
    assert _differences(app) == []
    patch(tasks[1], archived=False)
    assert client.delete(org.url(f"/tasks/{tasks[2]}"), headers=org.headers).status_code == 204
    with app.app_context():
        db.session.execute(delete(Task).where(Task.id == uuid.UUID(tasks[3])))
        db.session.commit()
    assert _differences(app) == []
    # A project state moved to another category: every task in it moves, with history.
    with app.app_context():
        untouched = db.session.get(Task, uuid.UUID(tasks[5]))
        state = db.session.get(State, untouched.state_id)
        category = StateCategory.STARTED
        if state.category == category:
            category = StateCategory.BACKLOG
        proj = db.session.get(Project, uuid.UUID(project["id"]))
        moved = workflow.update_state(proj, state, None, category=category)
        db.session.commit()
    assert moved >= 1 and _differences(app) == []
    # Writes no service makes: a raw category change with no history, a history row
    # backdated, one purged, a task moved to another project, a creation rewritten.
    other = create_project(client, org, "Ops", "OPS")
    fresh = new_task(client, org, project, title="F")["id"]
    year_ago = datetime.now(UTC) - timedelta(days=365)
    with app.app_context():
        db.session.execute(
            update(Task).where(Task.id == uuid.UUID(fresh)).values(state_category="started")
        )
        first = db.session.scalars(
            select(TaskActivity.id).where(
                TaskActivity.task_id == uuid.UUID(tasks[0]), TaskActivity.field == "state"
            )
        ).all()
        db.session.execute(
            update(TaskActivity).where(TaskActivity.id == first[0]).values(created_at=year_ago)
        )
        db.session.execute(delete(TaskActivity).where(TaskActivity.id == first[1]))
        db.session.execute(
            update(Task)
            .where(Task.id == uuid.UUID(tasks[1]))
            .values(project_id=uuid.UUID(other["id"]), created_at=year_ago)
        )
        db.session.commit()
    assert _differences(app) == []


def test_a_deleted_project_leaves_no_count_behind(app, client):
    """Its tasks and their history go with it, in these rollups and every older one
    (a 500 once: the cascade reached the tasks after it had removed the project's
    rollup rows, and the triggers wrote them again)."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    kept = create_project(client, org, "Ops", "OPS")
    started, done = state_in(states, "started"), state_in(states, "completed")
    for i in range(3):
        task = new_task(client, org, project, title=f"T{i}", state_id=started)["id"]
        resp = client.patch(org.url(f"/tasks/{task}"), json={"state_id": done}, headers=org.headers)
        assert resp.status_code == 200
    new_task(client, org, kept, title="Stays")
    assert (
        client.delete(org.url(f"/projects/{project['id']}"), headers=org.headers).status_code == 204
    )
    assert _differences(app) == [] and rollups_consistent(app)
    with app.app_context():
        left = [select(t.c.project_id).where(t.c.org_id == org.org_id) for t in TABLES]
        held = {row[0] for q in left for row in db.session.execute(q)}
    assert held == {uuid.UUID(kept["id"])}


def test_verify_repairs_the_flow_rollups(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org)
    assert _differences(app) == []
    with app.app_context():
        db.session.execute(delete(flow_rollup.task_flow_hours))
        db.session.execute(update(flow_rollup.task_flow_days).values(n=7))
        db.session.execute(delete(cycle_rollup.task_cycle_times))
        db.session.commit()
        assert len(_differences(app)) == 3
        broken = consistency.verify()
        assert not broken.ok and broken.missing and broken.wrong
        assert consistency.verify(repair=True).repaired
        db.session.commit()
    assert _differences(app) == []


def _both(client, org, path: str, query: dict) -> tuple[dict, dict]:
    """The answer from the rollups, and from the history (a filter that keeps every
    task that counts makes the endpoint read the history)."""
    kept = client.get(org.url(path), query_string=query, headers=org.headers)
    scanned = client.get(
        org.url(path), query_string={**query, "filter": "isCounted()"}, headers=org.headers
    )
    assert kept.status_code == scanned.status_code == 200, kept.get_json()
    return kept.get_json(), scanned.get_json()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Pacific/Kiritimati"])
def test_rollup_answers_equal_the_history(app, client, zone):
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org, zone=zone)
    for first, last in (("2026-10-25", "2026-11-12"), ("2026-11-04", "2026-11-04")):
        query = {"from": first, "to": last}
        kept, scanned = _both(client, org, "/analytics/cumulative-flow", query)
        assert kept == scanned
        assert any(d["completed"] for d in kept["days"])
        kept, scanned = _both(client, org, "/analytics/cycle-time", query)
        assert kept == scanned


def test_cycle_points_are_capped_to_the_slowest(app, client, monkeypatch):
    """Past the cap the answer carries the slowest points, says how many there were,
    and keeps the percentiles over all of them."""
    org = make_org(app, "Acme", "owner@acme.test")
    _build(app, client, org)
    query = {"from": "2026-11-02", "to": "2026-11-30"}
    whole = client.get(org.url("/analytics/cycle-time"), query_string=query, headers=org.headers)
    whole = whole.get_json()
    assert whole["point_count"] == 3 and not whole["truncated"]
    monkeypatch.setattr(flow_time, "POINT_CAP", 2)
    for body in _both(client, org, "/analytics/cycle-time", query):
        assert [p["title"] for p in body["points"]] == ["mon-thu", "restarted"]
        assert body["point_count"] == 3 and body["truncated"]
        assert body["percentiles"] == whole["percentiles"]
    login(client, org.owner_email)
    page = client.get(f"/o/{org.slug}/analytics/flow-time", query_string=query).get_data(True)
    assert "The chart draws the 2 slowest of the 3 tasks" in page


def _count_cycle_writes(app) -> None:
    """An audit table counting each kind of write to ``task_cycle_times``."""
    with app.app_context():
        db.session.execute(text("CREATE TABLE cycle_writes (op varchar(8))"))
        if db.engine.dialect.name == "postgresql":
            db.session.execute(
                text(
                    "CREATE FUNCTION cycle_writes_log() RETURNS trigger LANGUAGE plpgsql AS $$ "
                    "BEGIN INSERT INTO cycle_writes VALUES (TG_OP); RETURN NULL; END $$"
                )
            )
            db.session.execute(
                text(
                    "CREATE TRIGGER cycle_writes_on AFTER INSERT OR UPDATE OR DELETE "
                    "ON task_cycle_times FOR EACH ROW EXECUTE FUNCTION cycle_writes_log()"
                )
            )
        else:
            for op in ("INSERT", "UPDATE", "DELETE"):
                db.session.execute(
                    text(
                        f"CREATE TRIGGER cycle_writes_{op} AFTER {op} ON task_cycle_times "
                        f"BEGIN INSERT INTO cycle_writes VALUES ('{op}'); END"
                    )
                )
        db.session.commit()


def _drop_cycle_writes(app) -> None:
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            db.session.execute(text("DROP TRIGGER cycle_writes_on ON task_cycle_times"))
            db.session.execute(text("DROP FUNCTION cycle_writes_log()"))
        else:
            for op in ("INSERT", "UPDATE", "DELETE"):
                db.session.execute(text(f"DROP TRIGGER cycle_writes_{op}"))
        db.session.execute(text("DROP TABLE cycle_writes"))
        db.session.commit()


def test_a_completion_writes_its_cycle_time_once(app, client):
    """A completion fires two recomputes (the task's update and its history's insert);
    since migration 0030 the second finds the row as it would write it and leaves it,
    so the row and the week histogram are written once (0021 deleted and inserted the
    row again). A reopening deletes it."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    started, done = state_in(states, "started"), state_in(states, "completed")
    task = new_task(client, org, project, title="Once", state_id=started)["id"]
    _count_cycle_writes(app)
    try:
        writes = []
        for state in (done, started):
            resp = client.patch(
                org.url(f"/tasks/{task}"), json={"state_id": state}, headers=org.headers
            )
            assert resp.status_code == 200, resp.get_json()
            with app.app_context():
                writes.append(db.session.scalars(text("SELECT op FROM cycle_writes")).all())
                db.session.execute(text("DELETE FROM cycle_writes"))
                db.session.commit()
    finally:
        _drop_cycle_writes(app)
    assert writes == [["INSERT"], ["DELETE"]]
    assert _differences(app) == []


def test_history_appended_backdated_or_batched_keeps_the_flow_exact(app, client):
    """A state change after the task's first one, or a first one that leaves the
    category its task is in, takes the triggers' short path (its own move only,
    migrations 0037 and 0042); a first change from another category, a row backdated
    before the first and a statement holding two must take the general one, which moves
    the task's creation. Each is compared to the scan."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    started, done = state_in(states, "started"), state_in(states, "completed")
    walked, fresh, other, shelved, imported, kept = (
        new_task(client, org, project, title=t)["id"] for t in ("W", "F", "O", "S", "I", "K")
    )
    with app.app_context():
        created_in = db.session.get(Task, uuid.UUID(kept)).state_category
    for task_id, body in [
        *(  # the short path, through the API
            (walked, {"state_id": state}) for state in (started, done, started)
        ),
        (shelved, {"state_id": started}),
        (shelved, {"archived": True}),  # no longer counted, its history stays
    ]:
        resp = client.patch(org.url(f"/tasks/{task_id}"), json=body, headers=org.headers)
        assert resp.status_code == 200
    assert _differences(app) == []
    now = datetime.now(UTC).replace(tzinfo=None)

    def history(task_id: str, old: str, new: str, at: datetime) -> TaskActivity:
        return TaskActivity(
            org_id=org.org_id, task_id=uuid.UUID(task_id), field="state", old_value=old,
            new_value=new, old_category=old, new_category=new, created_at=at,
        )  # fmt: skip

    statements = [
        # Appended after the task's changes, with no write to the task (an import).
        [history(walked, "started", "completed", now + timedelta(minutes=1))],
        # Appended, one row each: within one category (no move); an archived task's.
        [history(walked, "completed", "completed", now + timedelta(minutes=1, seconds=30))],
        [history(shelved, "started", "completed", now)],
        # A task's first two changes in one statement: the creation moves.
        [
            history(fresh, "backlog", "started", now - timedelta(hours=3)),
            history(fresh, "started", "completed", now - timedelta(hours=2)),
        ],
        # Backdated before the walked task's first change: its creation moves.
        [history(walked, "cancelled", "unstarted", now - timedelta(days=30))],
        # One appended row and one first row in the same statement.
        [
            history(walked, "completed", "started", now + timedelta(minutes=2)),
            history(other, "triage", "unstarted", now - timedelta(days=2)),
        ],
        # A lone first change from a category its task is not in: the creation moves.
        [history(imported, "started", "completed", now - timedelta(hours=1))],
        # A lone first change from the task's own category, backdated: it does not.
        [history(kept, created_in, "completed", now - timedelta(days=3))],
    ]
    for rows in statements:
        with app.app_context():
            db.session.add_all(rows)
            db.session.commit()
        assert _differences(app) == [], rows


@pytest.mark.postgres_only  # SQLite has no data-modifying CTE
def test_a_task_written_with_its_history_in_one_statement_is_counted_where_it_began(app, client):
    """A new task is counted in its own category without reading its history, which
    the history's foreign key keeps empty (migration 0042), except when one statement
    writes both: its first change then says where it began, and the insert's trigger
    must still walk it."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    model = new_task(client, org, project, title="Model")["id"]
    with app.app_context():
        columns = [c.name for c in Task.__table__.columns if c.name not in ("id", "sequence")]
        copied = ", ".join(columns)
        task = uuid.uuid4()
        db.session.execute(
            text(
                f"WITH born AS (INSERT INTO tasks (id, sequence, {copied}) "
                f"SELECT :task, sequence + 1000, {copied} FROM tasks WHERE id = :model "
                "RETURNING id, org_id, state_category, created_at) "
                "INSERT INTO task_activity (id, org_id, task_id, field, old_value, new_value, "
                "old_category, new_category, created_at) SELECT :row, org_id, id, 'state', "
                "'started', state_category, 'started', state_category, created_at "
                "+ interval '1 hour' FROM born"
            ),
            {"task": task, "model": uuid.UUID(model), "row": uuid.uuid4()},
        )
        db.session.commit()
        began = db.session.scalar(
            text(
                "SELECT sum(n) FROM task_flow_hours WHERE category = 'started' AND hour = "
                "(SELECT floor(extract(epoch FROM created_at) / 3600) FROM tasks WHERE id = :task)"
            ),
            {"task": task},
        )
    assert _differences(app) == []
    assert began == 1  # created started, moved out an hour later
