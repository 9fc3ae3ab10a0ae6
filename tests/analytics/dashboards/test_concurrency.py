"""Widgets under real concurrency (docs/security.md#concurrency): many requests at once
against the live server, on each database. Positions stay a dense 0..n-1 with no
duplicate, and no request fails with a 5xx (a StaleDataError or "database is locked")."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests

from tests.factories import OrgFixture, make_org

N = 20


def _fire(org: OrgFixture, calls: list[tuple[str, str, dict | None]]) -> list:
    """Send every ``(method, url, json)`` at once, each from its own thread and connection."""

    def one(call):
        method, url, body = call
        with requests.Session() as session:
            return session.request(method, url, json=body, headers=org.headers, timeout=30)

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(one, calls))


def _positions(base: str, org: OrgFixture, dashboard_id: str) -> list[tuple[int, str]]:
    resp = requests.get(f"{base}/dashboards/{dashboard_id}", headers=org.headers, timeout=30)
    assert resp.status_code == 200, resp.text
    return sorted((w["position"], w["id"]) for w in resp.json()["widgets"])


def _setup(app, live_server, widgets: int = 0) -> tuple[OrgFixture, str, str, list[str]]:
    org = make_org(app, "Acme", "owner@acme.test")
    base = live_server.url + org.url()
    resp = requests.post(f"{base}/dashboards", json={"name": "Team"}, headers=org.headers)
    assert resp.status_code == 201, resp.text
    dashboard_id = resp.json()["id"]
    ids = []
    for i in range(widgets):
        resp = requests.post(
            f"{base}/dashboards/{dashboard_id}/widgets",
            json={"title": f"W{i}"},
            headers=org.headers,
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        ids.append(resp.json()["id"])
    return org, base, dashboard_id, ids


def _assert_no_5xx(responses) -> None:
    bad = [(r.status_code, r.text[:200]) for r in responses if r.status_code >= 500]
    assert not bad, bad


def test_concurrent_adds_give_dense_positions(app, live_server):
    org, base, dashboard_id, _ = _setup(app, live_server)
    url = f"{base}/dashboards/{dashboard_id}/widgets"
    responses = _fire(org, [("POST", url, {"title": f"W{i}"}) for i in range(N)])
    _assert_no_5xx(responses)
    assert [r.status_code for r in responses] == [201] * N
    positions = [p for p, _ in _positions(base, org, dashboard_id)]
    assert positions == list(range(N))


def test_concurrent_deletes_adds_and_reorders_leave_no_gap(app, live_server):
    org, base, dashboard_id, ids = _setup(app, live_server, widgets=10)
    widgets = f"{base}/dashboards/{dashboard_id}/widgets"
    calls = []
    for i, widget_id in enumerate(ids[:6]):
        calls.append(("DELETE", f"{widgets}/{widget_id}", None))
        calls.append(("POST", widgets, {"title": f"New {i}"}))
        calls.append(("POST", f"{widgets}/order", {"widget_ids": list(reversed(ids[6:]))}))
    responses = _fire(org, calls)
    _assert_no_5xx(responses)
    assert sorted(r.status_code for r in responses) == [200] * 6 + [201] * 6 + [204] * 6
    positions = [p for p, _ in _positions(base, org, dashboard_id)]
    assert positions == list(range(10))  # 10 - 6 deleted + 6 added


def test_concurrent_moves_keep_every_widget_once(app, live_server):
    """PATCH ``position`` from many tabs at once, mixed with reorders: every request
    works from the positions as they are after the one before it, so no widget is
    lost, doubled or left on a position another holds."""
    org, base, dashboard_id, ids = _setup(app, live_server, widgets=8)
    widgets = f"{base}/dashboards/{dashboard_id}/widgets"
    calls = [
        ("PATCH", f"{widgets}/{widget_id}", {"position": (i * 5) % 11})
        for i, widget_id in enumerate(ids)
    ]
    calls += [("POST", f"{widgets}/order", {"widget_ids": ids[::-1]})] * 4
    calls += [("PATCH", f"{widgets}/{ids[0]}", {"position": 0})] * 4
    responses = _fire(org, calls)
    _assert_no_5xx(responses)
    assert [r.status_code for r in responses] == [200] * len(calls)
    after = _positions(base, org, dashboard_id)
    assert [p for p, _ in after] == list(range(8))
    assert sorted(i for _, i in after) == sorted(ids)
