"""The maintained rollup (docs/analytics.md#maintained-rollups) stays exactly equal to a
scan of the tasks, under concurrent writes of every kind, on both databases; charts
read it whenever their filters touch only its columns, and give the same answer."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import requests
from sqlalchemy import event, select, update

from tests.factories import add_person, get_json, make_org, new_task, setup_project
from workspace import progress
from workspace.analytics import consistency, rollup_rewrite, slot_fold, task_counts
from workspace.extensions import db

PRIORITIES = ["urgent", "high", "medium", "low", "none"]
DUE = [None, "2024-01-05", "2026-11-20", "2026-11-30", "2031-06-01"]
KINDS = ["task", "bug", "feature", "epic"]


def _verify(app, **kwargs) -> consistency.Verification:
    with app.app_context():
        result = consistency.verify(**kwargs)
        db.session.commit()
        return result


def _rows(app) -> int:
    with app.app_context():
        return sum(
            len(db.session.execute(select(rollup.table)).all()) for rollup in consistency.ROLLUPS
        )


def test_concurrent_writes_of_every_kind_leave_the_rollup_equal_to_a_scan(app, live_server):
    org = make_org(app, "Acme", "owner@acme.test")
    other = make_org(app, "Globex", "owner@globex.test")
    people = [str(add_person(app, org.org_id, f"p{i}@acme.test").owner_id) for i in range(3)]
    base = live_server.url + org.url()
    http = requests.Session()
    http.headers.update(org.headers)
    projects = []
    plans: dict[str, tuple[list, list]] = {}
    for ident in ("WEB", "OPS"):
        project = http.post(f"{base}/projects", json={"name": ident, "identifier": ident}).json()
        states = http.get(f"{base}/projects/{project['id']}/states").json()
        projects.append((project, states))
        cycles = [
            http.post(f"{base}/projects/{project['id']}/cycles", json={"name": f"C{i}"}).json()
            for i in range(2)
        ]
        modules = [
            http.post(f"{base}/projects/{project['id']}/modules", json={"name": f"M{i}"}).json()
            for i in range(2)
        ]
        plans[project["id"]] = (
            [None, *(c["id"] for c in cycles)],
            [None, *(m["id"] for m in modules)],
        )
    # Another org's tasks share the table; they must be counted apart.
    other_base = live_server.url + other.url()
    other_project = requests.post(
        f"{other_base}/projects", json={"name": "X", "identifier": "X"}, headers=other.headers
    ).json()
    for _ in range(5):
        requests.post(
            f"{other_base}/projects/{other_project['id']}/tasks",
            json={"title": "theirs", "priority": "high"},
            headers=other.headers,
        )

    def create(rng: random.Random) -> dict:
        project, states = rng.choice(projects)
        body = {
            "title": "t",
            "priority": rng.choice(PRIORITIES),
            "kind": rng.choice(KINDS),
            "assignee_id": rng.choice([None, *people]),
            "state_id": rng.choice(states)["id"],
            "due_date": rng.choice(DUE),
            "cycle_id": rng.choice(plans[project["id"]][0]),
            "module_id": rng.choice(plans[project["id"]][1]),
        }
        with requests.Session() as s:
            resp = s.post(f"{base}/projects/{project['id']}/tasks", json=body, headers=org.headers)
        assert resp.status_code == 201, resp.text
        return resp.json()

    seeds = [create(random.Random(i)) for i in range(30)]

    def work(i: int) -> list[int]:
        rng = random.Random(1000 + i)
        codes = []
        with requests.Session() as s:
            s.headers.update(org.headers)
            for _ in range(8):
                task = rng.choice(seeds)
                states = next(st for p, st in projects if p["id"] == task["project_id"])
                op = rng.random()
                if op < 0.15:
                    codes.append(create(rng) and 201)
                    continue
                if op < 0.2:
                    resp = s.delete(f"{base}/tasks/{task['id']}")
                elif op < 0.3:
                    resp = s.patch(
                        f"{base}/tasks/{task['id']}", json={"archived": rng.random() < 0.5}
                    )
                else:
                    body = rng.choice(
                        [
                            {"state_id": rng.choice(states)["id"]},
                            {"priority": rng.choice(PRIORITIES)},
                            {"kind": rng.choice(KINDS)},
                            {"assignee_id": rng.choice([None, *people])},
                            {"due_date": rng.choice(DUE)},
                            {"cycle_id": rng.choice(plans[task["project_id"]][0])},
                            {
                                "module_id": rng.choice(plans[task["project_id"]][1]),
                                "cycle_id": rng.choice(plans[task["project_id"]][0]),
                            },
                            {
                                "state_id": rng.choice(states)["id"],
                                "priority": rng.choice(PRIORITIES),
                                "assignee_id": rng.choice([None, *people]),
                            },
                        ]
                    )
                    resp = s.patch(f"{base}/tasks/{task['id']}", json=body)
                codes.append(resp.status_code)
        return codes

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = [c for codes in pool.map(work, range(16)) for c in codes]
    # Deleted tasks answer 404 to later writes; nothing else may fail.
    assert set(results) <= {200, 201, 204, 404}, results

    result = _verify(app)
    assert result.ok, result
    assert result.buckets > 0
    # Writers add into slots of their own (migration 0036); folded, one row per
    # bucket is left and no row of zero.
    with app.app_context():
        slot_fold.fold()
        db.session.commit()
    assert _verify(app).ok
    assert _rows(app) == result.buckets


def test_verify_finds_and_repairs_drift(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    for priority in ("high", "high", "low"):
        new_task(client, org, project, priority=priority)
    assert _verify(app).ok
    with app.app_context():
        db.session.execute(
            update(task_counts.task_counts).values(n=task_counts.task_counts.c.n + 5)
        )
        db.session.execute(
            task_counts.task_counts.delete().where(task_counts.task_counts.c.priority == "low")
        )
        db.session.commit()
    found = _verify(app)
    assert not found.ok and found.missing == 1 and found.wrong == 1
    repaired = _verify(app, repair=True)
    assert repaired.repaired
    assert _verify(app).ok


def _reads_rollup(statement: str) -> bool:
    return any(f"FROM {rollup.table.name}" in statement for rollup in consistency.ROLLUPS)


def _statements(app):
    seen: list[str] = []

    def record(conn, cursor, statement, *args):
        seen.append(statement)

    return seen, record


def test_charts_read_the_rollup_when_they_can_and_agree_with_the_scan(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = next(s for s in states.values() if s["category"] == "completed")
    for i in range(12):
        new_task(
            client,
            org,
            project,
            title=f"Fix login {i}" if i % 3 == 0 else f"Other {i}",
            priority=PRIORITIES[i % 5],
            kind=KINDS[i % 4],
            **({"state_id": done["id"]} if i % 4 == 0 else {}),
        )
    seen, record = _statements(app)
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        by_rollup = {}
        for metric in ("count", "open", "done"):
            for dimension in ("status", "priority", "kind", "assignee", "project"):
                seen.clear()
                by_rollup[metric, dimension] = get_json(
                    client,
                    org,
                    "/analytics/custom",
                    metric=metric,
                    dimension=dimension,
                    filter="priority IN (high, urgent, none) AND isCounted()",
                )
                assert any(_reads_rollup(s) for s in seen), (metric, dimension)
        # A filter over a column the rollup does not keep scans the tasks.
        seen.clear()
        titled = get_json(
            client,
            org,
            "/analytics/custom",
            metric="count",
            dimension="kind",
            filter='title ~ "login"',
        )
        assert not any(_reads_rollup(s) for s in seen)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert sum(p["value"] for p in titled["points"]) == 4

    # The same figures with the rollup switched off: identical.
    original = rollup_rewrite.onto_rollup
    rollup_rewrite.onto_rollup = rollup_rewrite.as_written
    try:
        for (metric, dimension), answer in by_rollup.items():
            scanned = get_json(
                client,
                org,
                "/analytics/custom",
                metric=metric,
                dimension=dimension,
                filter="priority IN (high, urgent, none) AND isCounted()",
            )
            assert scanned == answer, (metric, dimension)
    finally:
        rollup_rewrite.onto_rollup = original


def test_flask_analytics_verify_reports_and_repairs(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, _ = setup_project(client, org)
    new_task(client, org, project, priority="high")
    runner = app.test_cli_runner()
    ok = runner.invoke(args=["analytics", "verify"])
    assert ok.exit_code == 0, ok.output
    assert "missing 0, extra 0, wrong 0" in ok.output
    with app.app_context():
        db.session.execute(task_counts.task_counts.delete())
        db.session.commit()
    drift = runner.invoke(args=["analytics", "verify", "--org", org.slug])
    assert drift.exit_code == 1 and "missing 1" in drift.output
    fixed = runner.invoke(args=["analytics", "verify", "--repair"])
    assert fixed.exit_code == 0 and "repaired" in fixed.stdout
    # Not a terminal: a plain progress line per tenth of the rollups (one per rollup
    # while there are at most ten) on stderr, the last at 100%.
    lines = [line for line in fixed.stderr.splitlines() if line.startswith("analytics verify")]
    total = len(consistency.ROLLUPS)
    assert len(lines) == min(total, progress.TENTHS)
    assert lines[-1].startswith(f"analytics verify --repair: {total}/{total} rollups (100%), ")
    assert runner.invoke(args=["analytics", "verify"]).exit_code == 0
    unknown = runner.invoke(args=["analytics", "verify", "--org", "nope"])
    assert unknown.exit_code != 0 and "No organization" in unknown.output


def test_scatter_reads_the_plan_rollup_and_agrees_with_the_scan(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    done = next(s for s in states.values() if s["category"] == "completed")
    base = f"/projects/{project['id']}"
    cycles = [
        client.post(
            org.url(f"{base}/cycles"), json={"name": f"Sprint {i}"}, headers=org.headers
        ).get_json()["id"]
        for i in range(3)
    ]
    modules = [
        client.post(
            org.url(f"{base}/modules"), json={"name": f"Area {i}"}, headers=org.headers
        ).get_json()["id"]
        for i in range(2)
    ]
    for i in range(14):
        new_task(
            client,
            org,
            project,
            cycle_id=cycles[i % 3] if i % 5 else None,
            module_id=modules[i % 2] if i % 3 else None,
            **({"state_id": done["id"]} if i % 4 == 0 else {}),
        )
    seen, record = _statements(app)
    with app.app_context():
        engine = db.engine
    answers = {}
    event.listen(engine, "before_cursor_execute", record)
    try:
        for dimension in ("cycle", "module"):
            seen.clear()
            answers[dimension] = get_json(client, org, "/analytics/scatter", dimension=dimension)
            assert any("FROM task_plan_counts" in s for s in seen), dimension
            assert not any("FROM tasks" in s for s in seen), dimension
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert sum(p["scope"] for p in answers["cycle"]) == 11  # 14 tasks, 3 without a cycle
    original = rollup_rewrite.onto_rollup
    rollup_rewrite.onto_rollup = rollup_rewrite.as_written
    try:
        for dimension, answer in answers.items():
            assert get_json(client, org, "/analytics/scatter", dimension=dimension) == answer
    finally:
        rollup_rewrite.onto_rollup = original
