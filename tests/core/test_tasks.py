"""Tasks (workspace/core/tasks.py): the service refuses a blank title, and the history
holds under real concurrency (docs/security.md#concurrency): many PATCHes of one task
at once against the live server, on each database. Flow and forecast read the
history, so it must be a chain: each row's old value is the previous row's new value,
and the last row's new value is the task's current one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests

from tests.factories import make_org

N = 20


def _chain(rows: list[dict], field: str, first: str, current: str) -> None:
    rows = [r for r in rows if r["field"] == field]
    assert rows, field
    expected_old = first
    for row in rows:
        assert row["old_value"] == expected_old, (
            field,
            [(r["old_value"], r["new_value"]) for r in rows],
        )
        expected_old = row["new_value"]
    assert expected_old == current, field


def test_concurrent_patches_keep_the_history_a_chain(app, live_server):
    org = make_org(app, "Acme", "owner@acme.test")
    base = live_server.url + org.url()
    http = requests.Session()
    http.headers.update(org.headers)
    project = http.post(f"{base}/projects", json={"name": "Web App", "identifier": "WEB"}).json()
    states = http.get(f"{base}/projects/{project['id']}/states").json()
    task = http.post(f"{base}/projects/{project['id']}/tasks", json={"title": "Start"}).json()
    first_state = next(s for s in states if s["id"] == task["state_id"])
    url = f"{base}/tasks/{task['id']}"

    def patch(i: int) -> requests.Response:
        body = {"title": f"Title {i}", "state_id": states[i % len(states)]["id"]}
        with requests.Session() as session:
            return session.patch(url, json=body, headers=org.headers, timeout=30)

    with ThreadPoolExecutor(max_workers=N) as pool:
        responses = list(pool.map(patch, range(N)))
    assert [r.status_code for r in responses] == [200] * N, [r.text[:200] for r in responses]

    now = http.get(url).json()
    rows = http.get(f"{url}/activity").json()
    _chain(rows, "title", "Start", now["title"])
    by_id = {s["id"]: s for s in states}
    _chain(rows, "state", first_state["name"], by_id[now["state_id"]]["name"])
    state_rows = [r for r in rows if r["field"] == "state"]
    categories = [first_state["category"]] + [r["new_category"] for r in state_rows]
    assert [r["old_category"] for r in state_rows] == categories[:-1]
    assert categories[-1] == now["state_category"]


def test_create_task_refuses_a_blank_title_in_the_service(app, acme):
    import pytest

    from workspace.core.projects import create_project as new_project
    from workspace.core.tasks import create_task
    from workspace.errors import ServiceError

    with app.app_context():
        project = new_project(acme.org_id, acme.owner_id, "Web", "WEB")
        with pytest.raises(ServiceError) as caught:
            create_task(project, acme.owner_id, title="   ")
        assert caught.value.field == "title"
