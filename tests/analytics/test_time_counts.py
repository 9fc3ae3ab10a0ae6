"""The time series' rollup (migration 0023, task_time_counts) follows every task in and
out, ``analytics verify --repair`` restores it, and the series it answers equals the
scan of the tasks in zones whose edges cut UTC days and hours."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, func, or_, select, update

from tests.factories import (
    create_project,
    get_json,
    new_task,
    project_states,
    setup_project,
    state_in,
)
from workspace.analytics import consistency, slot_fold
from workspace.analytics.time_rollup import TimeCountsCheck, task_time_counts
from workspace.core.models import Org, Task
from workspace.extensions import db


def _held(app, org_id: uuid.UUID) -> tuple[int, int]:
    """Tasks created and completed the rollup holds for the org (its hour rows)."""
    t = task_time_counts
    with app.app_context():
        created, completed = db.session.execute(
            select(
                func.coalesce(func.sum(t.c.created), 0), func.coalesce(func.sum(t.c.completed), 0)
            ).where(t.c.org_id == org_id, t.c.grain == "hour")
        ).one()
        days = db.session.execute(
            select(
                func.coalesce(func.sum(t.c.created), 0), func.coalesce(func.sum(t.c.completed), 0)
            ).where(t.c.org_id == org_id, t.c.grain == "day")
        ).one()
        # Rows that fall to zero are deleted: by the trigger on SQLite, by the fold on
        # PostgreSQL, where a writer's slot row stays at zero until then (0038).
        slot_fold.fold()
        db.session.commit()
        zeros = db.session.scalar(
            select(func.count()).where(t.c.org_id == org_id, t.c.created == 0, t.c.completed == 0)
        )
    assert tuple(days) == (created, completed)  # the two grains agree
    assert zeros == 0
    return int(created), int(completed)


def _equals_scan(app, org_id: uuid.UUID) -> bool:
    """Whether the org's rows, their slots summed, are exactly what a scan of its
    tasks computes."""
    t = task_time_counts
    keys = [t.c.org_id, t.c.grain, t.c.starts_at, t.c.project_id]
    with app.app_context():
        held = db.session.execute(
            select(*keys, func.sum(t.c.created), func.sum(t.c.completed))
            .where(t.c.org_id == org_id)
            .group_by(*keys)
            .having(or_(func.sum(t.c.created) != 0, func.sum(t.c.completed) != 0))
        ).all()
        scanned = db.session.execute(TimeCountsCheck().scan(org_id)).all()
        db.session.rollback()
    return sorted(map(tuple, held)) == sorted(map(tuple, scanned))


def _set(app, task_id: str, **values) -> None:
    with app.app_context():
        db.session.execute(update(Task).where(Task.id == uuid.UUID(task_id)).values(**values))
        db.session.commit()


def test_rollup_follows_creates_completes_reopens_archives_deletes_and_moves(app, client, acme):
    project, states = setup_project(client, acme)
    other = create_project(client, acme, "Mobile", "MOB")
    done, started = state_in(states, "completed"), state_in(states, "started")

    def patch(task_id: str, **body) -> None:
        resp = client.patch(acme.url(f"/tasks/{task_id}"), json=body, headers=acme.headers)
        assert resp.status_code == 200, resp.get_json()

    tasks = [new_task(client, acme, project, title=f"T{i}")["id"] for i in range(5)]
    assert _held(app, acme.org_id) == (5, 0)
    for task_id in tasks:
        patch(task_id, state_id=done)
    assert _held(app, acme.org_id) == (5, 5)
    patch(tasks[0], state_id=started)  # reopened: no completion time any more
    assert _held(app, acme.org_id) == (5, 4)
    patch(tasks[1], archived=True)  # stops counting: its creation and completion go
    assert _held(app, acme.org_id) == (4, 3)
    patch(tasks[1], archived=False)
    assert _held(app, acme.org_id) == (5, 4)
    assert client.delete(acme.url(f"/tasks/{tasks[2]}"), headers=acme.headers).status_code == 204
    assert _held(app, acme.org_id) == (4, 3)
    with app.app_context():  # a hard delete, as a purge would
        db.session.execute(delete(Task).where(Task.id == uuid.UUID(tasks[3])))
        db.session.commit()
    assert _held(app, acme.org_id) == (3, 2)
    # A raw UPDATE moving a task to another project and back in time moves its rows.
    _set(
        app,
        tasks[4],
        project_id=uuid.UUID(other["id"]),
        created_at=datetime(2025, 3, 1, 10, 30, tzinfo=UTC),
        completed_at=datetime(2025, 3, 2, 23, 59, tzinfo=UTC),
    )
    assert _held(app, acme.org_id) == (3, 2)
    assert _equals_scan(app, acme.org_id)
    t = task_time_counts
    with app.app_context():
        moved = db.session.execute(
            select(t.c.grain, t.c.starts_at, func.sum(t.c.created), func.sum(t.c.completed))
            .where(t.c.project_id == uuid.UUID(other["id"]))
            .group_by(t.c.grain, t.c.starts_at)
            .order_by(t.c.grain, t.c.starts_at)
        ).all()
    assert [(g, s.isoformat(), c, d) for g, s, c, d in moved] == [
        ("day", "2025-03-01T00:00:00+00:00", 1, 0),
        ("day", "2025-03-02T00:00:00+00:00", 0, 1),
        ("hour", "2025-03-01T10:00:00+00:00", 1, 0),
        ("hour", "2025-03-02T23:00:00+00:00", 0, 1),
    ]


def test_verify_repairs_the_rollup(app, client, acme):
    project, states = setup_project(client, acme)
    for i in range(3):
        new_task(client, acme, project, title=f"T{i}", state_id=state_in(states, "completed"))
    with app.app_context():
        t = task_time_counts
        db.session.execute(
            update(t).where(t.c.org_id == acme.org_id, t.c.grain == "day").values(created=7)
        )
        db.session.execute(delete(t).where(t.c.org_id == acme.org_id, t.c.grain == "hour"))
        db.session.commit()
        found = consistency.verify(acme.org_id)
        assert not found.ok and found.missing and found.wrong
        db.session.rollback()
    assert not _equals_scan(app, acme.org_id)
    with app.app_context():
        consistency.verify(acme.org_id, repair=True)
        db.session.commit()
    assert _equals_scan(app, acme.org_id)
    assert _held(app, acme.org_id) == (3, 3)


def _zone(app, org, timezone: str, week_start: str = "monday") -> None:
    with app.app_context():
        db.session.execute(
            update(Org).where(Org.id == org.org_id).values(timezone=timezone, week_start=week_start)
        )
        db.session.commit()


def _points(client, org, **params) -> list[tuple[str, int]]:
    body = get_json(client, org, "/analytics/custom", **params)
    return [(p["key"], p["value"]) for p in body["points"]]


def _rollup_equals_scan(client, org, **params) -> list[tuple[str, int]]:
    """The series (read from the rollup) and the same with a filter every task passes
    (so read from the tasks) agree; returns the series."""
    read = _points(client, org, **params)
    scanned = _points(client, org, filter="isCounted()", **params)
    assert read == scanned, params
    return read


def test_rollup_equals_scan_where_edges_cut_days_and_hours(app, client, acme):
    web, web_states = setup_project(client, acme)
    mobile = create_project(client, acme, "Mobile", "MOB")
    mobile_states = project_states(client, acme, mobile["id"])
    moments = [
        datetime(2025, 12, 27, 18, 29), datetime(2025, 12, 27, 18, 31),  # Kolkata's midnight
        datetime(2025, 12, 28, 4, 59), datetime(2025, 12, 28, 5, 0),  # New York's
        datetime(2025, 12, 31, 23, 59), datetime(2026, 1, 1, 0, 0),
        datetime(2026, 1, 3, 18, 15), datetime(2026, 1, 4, 4, 30),
        datetime(2026, 3, 8, 4, 59), datetime(2026, 3, 8, 5, 1),  # New York's spring forward
        datetime(2026, 3, 9, 3, 59), datetime(2026, 3, 9, 4, 0),
    ]  # fmt: skip
    for i, at in enumerate(moments):
        project, states = (web, web_states) if i % 2 else (mobile, mobile_states)
        task = new_task(
            client, acme, project, title=f"T{i}", state_id=state_in(states, "completed")
        )
        stamp = at.replace(tzinfo=UTC)
        _set(app, task["id"], created_at=stamp, completed_at=stamp)
    ranges = [
        dict(interval="week", **{"from": "2025-12-20"}, to="2026-01-10"),
        dict(interval="day", **{"from": "2025-12-26"}, to="2026-01-05"),
        dict(interval="week", **{"from": "2026-03-01"}, to="2026-03-15"),
        dict(interval="month", **{"from": "2025-12-01"}, to="2026-03-31"),
    ]
    for zone in ("UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu"):
        for week_start in ("monday", "sunday", "saturday"):
            _zone(app, acme, zone, week_start)
            for dimension, metric in (("created", "count"), ("completed", "done")):
                for params in ranges:
                    _rollup_equals_scan(client, acme, dimension=dimension, metric=metric, **params)
                body = get_json(
                    client, acme, "/analytics/custom", dimension=dimension, metric=metric,
                    split="project", **ranges[0],
                )  # fmt: skip
                scanned = get_json(
                    client, acme, "/analytics/custom", dimension=dimension, metric=metric,
                    split="project", filter="isCounted()", **ranges[0],
                )  # fmt: skip
                assert [(s["key"], s["values"]) for s in body["series"]] == [
                    (s["key"], s["values"]) for s in scanned["series"]
                ], (zone, week_start)
    # The year's first hours in New York are the last of 2025 in its weeks.
    _zone(app, acme, "America/New_York", "sunday")
    assert _rollup_equals_scan(
        client,
        acme,
        dimension="created",
        interval="week",
        **{"from": "2025-12-21"},
        to="2026-01-10",
    ) == [("2025-12-21", 3), ("2025-12-28", 5), ("2026-01-04", 0)]
