"""Writers of one project do not queue on shared rollup rows (migrations 0036-0038,
docs/scaling.md#hot-writes): on PostgreSQL the arithmetic rollups run at COMMIT, and
every rollup takes a slot per writing transaction; reads stay exact either way."""

from __future__ import annotations

import uuid
from datetime import date

import pytest
from sqlalchemy import func, select, text

from tests.factories import make_org, new_task, setup_project, state_in
from workspace.analytics import consistency, rollups, slot_fold
from workspace.analytics.flow_rollup import task_flow_days
from workspace.analytics.scope import make_scope
from workspace.analytics.task_counts import (
    task_counts,
    task_done_counts,
    task_due_counts,
    task_totals,
)
from workspace.analytics.time_rollup import task_time_counts
from workspace.core.models import Org, Project, Task
from workspace.core.tasks import create_task
from workspace.extensions import db
from workspace.jobs import runner, service
from workspace.jobs.models import Job

#: A state change's history row, written by hand (its task's row is updated after it):
#: ``:old`` and ``:new`` are the categories, and stand for the states' names too.
STATE_ROW = text(
    "INSERT INTO task_activity (id, org_id, task_id, field, old_value, new_value, "
    "old_category, new_category, created_at) VALUES (gen_random_uuid(), :org, :task, "
    "'state', :old, :new, :old, :new, clock_timestamp() AT TIME ZONE 'utc')"
)


def test_a_read_in_the_writing_transaction_counts_its_own_writes(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    with app.app_context():
        scope = make_scope(db.session.get(Org, org.org_id), None)
        before = rollups.overview(scope)["total"]
        owned = db.session.get(Project, uuid.UUID(project["id"]))
        create_task(owned, org.owner_id, title="Not committed yet")
        db.session.flush()
        # Same transaction, no commit: the deferred rollup triggers fire for the read.
        assert rollups.overview(scope)["total"] == before + 1
        assert consistency.verify(org.org_id).ok
        db.session.rollback()


def _two_writers(engine):
    """Two connections of their own: each open transaction claims a slot no other
    holds (``rollup_slot()``, migration 0037), whatever their backends' pids."""
    return [engine.connect(), engine.connect()]


@pytest.mark.postgres_only  # SQLite has one writer at a time, and only slot 0
def test_concurrent_writers_use_their_own_slots_and_the_fold_joins_them(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = state_in(states, "completed")
    tasks = [new_task(client, org, project, title=f"t{i}")["id"] for i in range(6)]
    with app.app_context():  # the setup's writes in slot 0: what follows is the writers'
        slot_fold.fold()
        db.session.commit()
    # Two connections complete tasks of the same project in open transactions at once:
    # with one row per bucket the second would wait for the first's commit.
    with app.app_context():
        engine = db.engine
    first, second = _two_writers(engine)
    try:
        for conn, task_id in ((first, tasks[0]), (second, tasks[1])):
            conn.execute(text("SET lock_timeout = '2s'"))
            conn.execute(
                text("INSERT INTO task_activity (id, org_id, task_id, field, old_value, "
                     "new_value, old_category, new_category, created_at) VALUES "
                     "(gen_random_uuid(), :org, :task, 'state', 'Todo', 'Done', 'unstarted', "
                     "'completed', now() AT TIME ZONE 'utc')"),
                {"org": org.org_id, "task": task_id},
            )  # fmt: skip
            conn.execute(
                text("UPDATE tasks SET state_id = :s, state_category = 'completed', "
                     "completed_at = now() AT TIME ZONE 'utc' WHERE id = :t"),
                {"s": done, "t": task_id},
            )  # fmt: skip
            # The arithmetic rollups' deferred triggers now, not at COMMIT: with one
            # row per bucket the second writer would wait on the first's rows.
            conn.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
        first.commit()
        second.commit()
    finally:
        first.close()
        second.close()
    with app.app_context():
        written = (task_done_counts, task_flow_days, task_totals, task_counts, task_time_counts)
        for table in written:
            slots = db.session.scalar(
                select(func.count(func.distinct(table.c.slot))).where(
                    table.c.org_id == org.org_id, table.c.slot != 0
                )
            )
            assert slots == 2, table.name  # one per writer, neither waited for the other
        assert consistency.verify(org.org_id).ok
        scope = make_scope(db.session.get(Org, org.org_id), None)
        assert rollups.overview(scope)["completed"] == 2
        slot_fold.fold()
        db.session.commit()
        for table in written:
            assert set(
                db.session.scalars(select(table.c.slot).where(table.c.org_id == org.org_id))
            ) == {0}, table.name
        assert consistency.verify(org.org_id).ok
        assert rollups.overview(scope)["completed"] == 2
        total = db.session.scalar(
            select(func.sum(task_done_counts.c.n)).where(task_done_counts.c.org_id == org.org_id)
        )
        assert total == 2
        assert db.session.scalar(select(func.count()).where(Task.org_id == org.org_id)) == 6


@pytest.mark.postgres_only  # HOT updates and row locks are PostgreSQL's
def test_flow_rows_update_in_place_and_the_fold_skips_rows_a_writer_holds(app, client):
    """No index names a flow row's count (migration 0037), so a state change updates
    its slot's rows in place (HOT, no new index entries); zero rows wait for the fold,
    which leaves a row an open transaction holds for its next run instead of waiting."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    started, todo = state_in(states, "started"), state_in(states, "unstarted")
    tasks = [new_task(client, org, project, title=f"t{i}")["id"] for i in range(3)]
    with app.app_context():
        engine = db.engine
    with engine.connect() as conn:
        hot = text(
            "SELECT pg_stat_get_xact_tuples_updated(CAST('task_flow_hours' AS regclass)), "
            "pg_stat_get_xact_tuples_hot_updated(CAST('task_flow_hours' AS regclass))"
        )
        for step, task_id in enumerate(tasks * 2):
            old, new = ("unstarted", "started") if step < 3 else ("started", "unstarted")
            conn.execute(STATE_ROW, {"org": org.org_id, "task": task_id, "old": old, "new": new})
            conn.execute(
                text("UPDATE tasks SET state_id = :s, state_category = :c WHERE id = :t"),
                {"s": started if step < 3 else todo, "c": new, "t": task_id},
            )
        updated, in_place = conn.execute(hot).one()
        assert updated >= 8 and in_place == updated
        # In and out of started this hour: the writer's slot row stays, at zero.
        zeros = conn.execute(
            text("SELECT count(*) FROM task_flow_hours WHERE org_id = :o AND n = 0 "
                 "AND category = 'started' AND slot = rollup_slot()"),
            {"o": org.org_id},
        ).scalar_one()  # fmt: skip
        assert zeros == 1
        # Held by this open transaction: the fold must neither wait nor take them.
        with app.app_context():
            db.session.execute(text("SET LOCAL lock_timeout = '2s'"))
            slot_fold.fold()
            db.session.commit()
        conn.commit()
    with app.app_context():
        assert consistency.verify(org.org_id).ok
        slot_fold.fold()
        db.session.commit()
        rows = db.session.execute(
            select(task_flow_days.c.slot, task_flow_days.c.n).where(
                task_flow_days.c.org_id == org.org_id
            )
        ).all()
        assert rows and {slot for slot, _ in rows} == {0} and all(n for _, n in rows)
        assert consistency.verify(org.org_id).ok


def test_a_bucket_a_writer_emptied_is_not_a_group(app, client):
    """On PostgreSQL a slot row that falls to zero stays until the fold (migration
    0038): a grouped read of the rollups must not turn it into a group of zero, as a
    scan of the tasks never would (workload lists assignees with a task that counts)."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    task = new_task(client, org, project, title="Handed over")
    url = org.url(f"/tasks/{task['id']}")
    body = {"assignee_id": str(org.owner_id)}
    assert client.patch(url, json=body, headers=org.headers).status_code == 200
    with app.app_context():
        scope = make_scope(db.session.get(Org, org.org_id), None)
        assert [p["assignee_id"] for p in rollups.workload(scope)] == [org.owner_id]
    body = {"assignee_id": None}
    assert client.patch(url, json=body, headers=org.headers).status_code == 200
    with app.app_context():
        scope = make_scope(db.session.get(Org, org.org_id), None)
        assert rollups.workload(scope) == []
        assert rollups.overview(scope)["total"] == 1
        slot_fold.fold()
        db.session.commit()
        assert rollups.workload(scope) == []
        assert consistency.verify(org.org_id).ok


@pytest.mark.postgres_only
def test_a_transaction_claims_one_slot_and_triggers_read_it_inline(app):
    """Migration 0039: every rollup upsert names ``rollup_slot()``; the planner inlines
    it (a PL/pgSQL call per upsert was a measurable part of a write) and it claims a
    slot once per transaction, one no concurrent transaction holds."""
    with app.app_context():
        engine = db.engine
    first, second = _two_writers(engine)
    try:
        plan = first.execute(text("EXPLAIN VERBOSE SELECT rollup_slot()")).scalars().all()
        assert "current_setting('workspace.rollup_slot'" in " ".join(plan)
        mine = [first.execute(text("SELECT rollup_slot()")).scalar() for _ in range(3)]
        theirs = second.execute(text("SELECT rollup_slot()")).scalar()
        assert len(set(mine)) == 1 and 1 <= mine[0] <= 32
        assert theirs != mine[0]
        first.commit()
        # The claim ends with the transaction: its advisory lock is released.
        assert second.execute(
            text("SELECT pg_try_advisory_xact_lock(31, :slot)"), {"slot": mine[0]}
        ).scalar()
    finally:
        first.close()
        second.close()


def _cycle_row(conn, task_id: str):
    return conn.execute(
        text("SELECT started_at, completed_at FROM task_cycle_times WHERE task_id = :t"),
        {"t": task_id},
    ).one_or_none()


def _recomputes(conn) -> int:
    """This transaction's calls of the cycle-time recompute so far (its deferred
    triggers run first)."""
    conn.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
    return conn.execute(
        text("SELECT coalesce(pg_stat_get_xact_function_calls("
             "'task_cycle_recompute'::regproc), 0)")
    ).scalar()  # fmt: skip


@pytest.mark.postgres_only  # the recompute is one function on PostgreSQL (0040)
def test_a_completion_reads_its_cycle_time_once_and_a_later_change_again(app, client):
    """Migration 0040: a completion writes the history and the task, and both fired a
    recompute of the cycle time at COMMIT, reading the task's history twice. Now the
    second is skipped when nothing it reads changed, and anything that does change it
    (a backdated start, a new completion moment) is recomputed."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = state_in(states, "completed")
    task_id = new_task(client, org, project, title="Ship it")["id"]
    with app.app_context():
        conn = db.engine.connect()
    history = text(
        "INSERT INTO task_activity (id, org_id, task_id, field, old_value, new_value, "
        "old_category, new_category, created_at) VALUES (gen_random_uuid(), :org, :task, "
        "'state', 'a', 'b', :old, :new, :at)"
    )
    try:
        conn.execute(text("SET track_functions = 'pl'"))
        start = conn.execute(text("SELECT now() AT TIME ZONE 'utc' - interval '3 days'")).scalar()
        finish = conn.execute(text("SELECT now() AT TIME ZONE 'utc'")).scalar()
        row = {"org": org.org_id, "task": task_id}
        conn.execute(history, {**row, "old": "backlog", "new": "started", "at": start})
        conn.execute(history, {**row, "old": "started", "new": "completed", "at": finish})
        conn.execute(
            text("UPDATE tasks SET state_id = :s, state_category = 'completed', "
                 "completed_at = :at WHERE id = :t"),
            {"s": done, "t": task_id, "at": finish},
        )  # fmt: skip
        # Two history rows and the task's update: two recomputes, not three.
        assert _recomputes(conn) == 2
        assert _cycle_row(conn, task_id) == (start, finish)
        # A start written later but dated earlier moves the cycle's start.
        earlier = start - (finish - start)
        conn.execute(history, {**row, "old": "backlog", "new": "started", "at": earlier})
        assert _recomputes(conn) == 3
        assert _cycle_row(conn, task_id) == (earlier, finish)
        # The task's completion moment changes with no history: its own trigger runs.
        later = finish + (finish - start)
        conn.execute(text("UPDATE tasks SET completed_at = :at WHERE id = :t"),
                     {"at": later, "t": task_id})  # fmt: skip
        assert _recomputes(conn) == 4
        assert _cycle_row(conn, task_id) == (earlier, later)
        # Reopened: the row goes, without reading the history.
        conn.execute(
            text("UPDATE tasks SET state_category = 'started', completed_at = NULL "
                 "WHERE id = :t"), {"t": task_id}
        )  # fmt: skip
        assert _recomputes(conn) == 5
        assert _cycle_row(conn, task_id) is None
        conn.commit()
    finally:
        conn.close()
    with app.app_context():
        assert consistency.verify(org.org_id).ok


@pytest.mark.postgres_only  # SQLite has only slot 0: nothing to fold
def test_the_fold_reads_only_what_writers_added_and_drops_buckets_it_brought_to_zero(app, client):
    """Migration 0041: the fold runs every minute, so it must not read a big rollup
    whole each time. It finds the rows outside slot 0 through their partial index, sums
    them into slot 0, and deletes the buckets that came to zero, and only those."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    days = 2000
    with app.app_context():
        slot_fold.fold()
        db.session.execute(
            text("INSERT INTO task_due_counts (org_id, project_id, due_date, n, slot) "
                 "SELECT :org, :project, DATE '2020-01-01' + d, 2, 0 "
                 "FROM generate_series(0, :days - 1) AS d"),
            {"org": org.org_id, "project": project["id"], "days": days},
        )  # fmt: skip
        # What two writers left: one bucket back to zero, one up by three, one new.
        db.session.execute(
            text("INSERT INTO task_due_counts (org_id, project_id, due_date, n, slot) VALUES "
                 "(:org, :project, DATE '2020-01-01', -1, 3), "
                 "(:org, :project, DATE '2020-01-01', -1, 7), "
                 "(:org, :project, DATE '2020-01-02', 3, 3), "
                 "(:org, :project, DATE '2030-01-01', 1, 7)"),
            {"org": org.org_id, "project": project["id"]},
        )  # fmt: skip
        db.session.commit()
        db.session.execute(text("ANALYZE task_due_counts"))
        db.session.commit()
        # This backend's counts not yet reported (a second or so of transactions).
        scans = text(
            "SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables "
            "WHERE relname = 'task_due_counts'"
        )
        before = db.session.execute(scans).one()
        folded = slot_fold.fold()
        after = db.session.execute(scans).one()
        db.session.commit()
        assert folded["task_due_counts"] == 4
        assert after.seq_scan == before.seq_scan and after.idx_scan > before.idx_scan
        rows = dict(
            db.session.execute(
                select(task_due_counts.c.due_date, task_due_counts.c.n).where(
                    task_due_counts.c.org_id == org.org_id
                )
            ).all()
        )
        slots = set(db.session.scalars(select(task_due_counts.c.slot)))
    assert slots == {0}
    assert len(rows) == days  # 2020-01-01 is gone, 2030-01-01 is new
    assert date(2020, 1, 1) not in rows
    assert rows[date(2020, 1, 2)] == 5 and rows[date(2030, 1, 1)] == 1
    assert sum(rows.values()) == 2 * days - 2 + 3 + 1


@pytest.mark.postgres_only  # SQLite has only slot 0: nothing to fold
def test_the_fold_job_lets_go_of_each_tables_rows_once_it_is_folded(app, client, monkeypatch):
    """A writer that meets a slot row the fold took waits for the fold's commit: the
    job commits table by table (a fold of eleven tables in one transaction held a
    minute's rows for all of it, 622 ms in the bench), and ends done with the counts."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    for i in range(3):
        new_task(client, org, project, title=f"t{i}")
    seen: list[tuple[str, int]] = []
    fold_one = slot_fold._fold

    def watched(table):
        # What another connection sees of the table folded before this one.
        if seen:
            with engine.connect() as other:
                left = other.execute(
                    text(f"SELECT count(*) FROM {seen[-1][0]} WHERE slot <> 0")
                ).scalar_one()
            seen[-1] = (seen[-1][0], left)
        seen.append((table.name, -1))
        return fold_one(table)

    monkeypatch.setattr(slot_fold, "_fold", watched)
    with app.app_context():
        engine = db.engine
        job = service.enqueue(slot_fold.KIND)
        db.session.commit()
        job_id = job.id
    runner.run(app, str(job_id))
    with app.app_context():
        job = db.session.get(Job, job_id)
        assert job.state == "done"
        folded = job.result["folded"]
        assert folded["task_counts"] > 0 and set(folded) == {t.name for t in slot_fold.SLOTTED}
        assert set(db.session.scalars(select(task_counts.c.slot))) == {0}
        assert consistency.verify(org.org_id).ok
    # Every table but the last was committed before the next one was folded.
    assert [left for _, left in seen[:-1]] == [0] * (len(seen) - 1)
    assert len(seen) == len(slot_fold.SLOTTED)


@pytest.mark.postgres_only  # HOT updates are PostgreSQL's; SQLite's tables are their keys
def test_time_counts_and_cycle_weeks_update_in_place(app, client):
    """Their counts left the primary key (0043): completions in one hour update the
    writer's slot row in place (HOT), where each had added an index entry and a dead
    row version the next upsert's unique check walked until vacuum."""
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    ids = {c: state_in(states, c) for c in ("started", "completed")}
    tasks = [new_task(client, org, project, title=f"t{i}")["id"] for i in range(3)]
    with app.app_context():
        engine = db.engine
    tables = ("task_time_counts", "task_cycle_weeks")
    stats = ", ".join(
        f"pg_stat_get_xact_tuples_updated(CAST('{t}' AS regclass)), "
        f"pg_stat_get_xact_tuples_hot_updated(CAST('{t}' AS regclass))"
        for t in tables
    )
    moves = [("unstarted", "started")] + [("started", "completed"), ("completed", "started")] * 3
    with engine.connect() as conn:
        # The deferred rollup triggers run as each statement ends, inside this
        # transaction, whose own statistics are read below.
        conn.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
        for old, new in moves:
            for task_id in tasks:
                conn.execute(
                    STATE_ROW, {"org": org.org_id, "task": task_id, "old": old, "new": new}
                )
                conn.execute(
                    text("UPDATE tasks SET state_id = :s, state_category = :c, completed_at = "
                         "CASE WHEN :done THEN clock_timestamp() AT TIME ZONE 'utc' END "
                         "WHERE id = :t"),
                    {"s": ids[new], "c": new, "done": new == "completed", "t": task_id},
                )  # fmt: skip
        counts = conn.execute(text(f"SELECT {stats}")).one()
        conn.commit()
    for table, updated, in_place in zip(tables, counts[::2], counts[1::2], strict=True):
        assert updated >= 6 and in_place == updated, (table, updated, in_place)
    with app.app_context():
        assert consistency.verify(org.org_id).ok
