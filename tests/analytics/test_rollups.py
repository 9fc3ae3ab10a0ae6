"""Every rollup through the API equals a plain-Python recount over all rows, for the
whole org and for one project, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.analytics import reference as ref


def get(client, ds, path, **params):
    resp = client.get(ds.url(f"/analytics/{path}"), query_string=params, headers=ds.org.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


@pytest.fixture
def data(app, dataset):
    with app.app_context():
        return ref.load(dataset.org.org_id)


@pytest.mark.parametrize("scoped", [False, True])
def test_overview_flow_workload(client, dataset, data, scoped):
    project = dataset.project_ids[1] if scoped else None
    params = {"project_id": str(project)} if project else {}
    now = datetime.now(UTC)

    assert get(client, dataset, "overview", **params) == ref.overview(data, now, project)

    flow = get(client, dataset, "flow", **params)
    expected = ref.flow(data, now, project)
    assert flow["total_wip"] == expected["total_wip"] > 0
    for got, want in zip(flow["categories"], expected["categories"], strict=True):
        assert (got["category"], got["wip"]) == (want["category"], want["wip"])
        assert got["avg_age_days"] == pytest.approx(want["avg_age_days"], abs=0.02)

    workload = get(client, dataset, "workload", **params)
    assert workload == ref.workload(data, now, project)
    assert any(r["kind"] == "agent" for r in workload), "agents count like people"


def test_overview_counts_nothing_outside_scope(client, dataset, data):
    """Triage, drafts, archived and deleted tasks, and another org's, never count."""
    everything = [t for t in data.tasks]
    counted = data.counted()
    assert len(counted) < len(everything)
    assert get(client, dataset, "overview")["total"] == len(counted)


@pytest.mark.parametrize("dimension", ["cycle", "module"])
def test_scatter(client, dataset, data, dimension):
    for project in (None, dataset.project_ids[0]):
        params = {"dimension": dimension} | ({"project_id": str(project)} if project else {})
        got = {
            p["id"]: (p["scope"], p["completed"], p["completion_rate"])
            for p in get(client, dataset, "scatter", **params)
        }
        assert got == ref.scatter(data, dimension, project)
        assert any(v[0] == 0 and v[2] == 0.0 for v in got.values()) or dimension == "module"


@pytest.mark.parametrize("weeks", [2, 3, 8, 26])
def test_forecast(client, dataset, data, weeks):
    now = datetime.now(UTC)
    got = get(client, dataset, "forecast", weeks=weeks)
    assert got == ref.forecast(data, now, weeks)
    assert len(got["series"]) == weeks
    if weeks >= 8:
        assert sum(p["completed"] for p in got["series"]) > 0


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "America/Los_Angeles"])
def test_forecast_and_overview_in_the_org_time_zone(app, client, dataset, zone):
    """Weeks start on the org's Monday and overdue uses the org's today: far east
    and far west of UTC, the API still equals the reference evaluated in that zone."""
    from workspace.core.models import Org
    from workspace.extensions import db

    with app.app_context():
        db.session.get(Org, dataset.org.org_id).timezone = zone
        db.session.commit()
        data = ref.load(dataset.org.org_id)
    assert str(data.tz) == zone
    now = datetime.now(UTC)
    assert get(client, dataset, "forecast", weeks=6) == ref.forecast(data, now, 6)
    assert get(client, dataset, "overview") == ref.overview(data, now)


def test_forecast_default_and_project_scope(client, dataset, data):
    project = dataset.project_ids[0]
    got = get(client, dataset, "forecast", project_id=str(project))
    assert got == ref.forecast(data, datetime.now(UTC), 8, project)


@pytest.mark.parametrize(
    "row,col",
    [("assignee", "status"), ("priority", "kind"), ("project", "assignee"), ("status", "status")],
)
def test_pivot(client, dataset, data, row, col):
    got = get(client, dataset, "pivot", row=row, col=col)
    cells = {(c["row"], c["col"]): c["count"] for c in got["cells"]}
    assert cells == ref.pivot(data, row, col)
    assert {r["key"] for r in got["rows"]} == {r for r, _ in cells}
    assert {c["key"] for c in got["cols"]} == {c for _, c in cells}
    if "assignee" in (row, col):
        keys = {r["key"] for r in got["rows"]} | {c["key"] for c in got["cols"]}
        assert "unassigned" in keys


def test_pivot_defaults_to_assignee_by_status(client, dataset):
    got = get(client, dataset, "pivot")
    assert (got["row"], got["col"]) == ("assignee", "status")


@pytest.mark.parametrize("metric", ["count", "done", "open"])
@pytest.mark.parametrize("dimension", ["status", "priority", "kind", "assignee", "project"])
def test_custom_chart(client, dataset, data, metric, dimension):
    got = get(client, dataset, "custom", metric=metric, dimension=dimension)
    assert got["points"] == ref.custom(data, metric, dimension)
    values = [p["value"] for p in got["points"]]
    assert values == sorted(values, reverse=True)


def test_custom_chart_filters(client, dataset, data):
    project = dataset.project_ids[0]
    got = get(
        client,
        dataset,
        "custom",
        dimension="assignee",
        status="in progress",
        priority="high",
        project_id=str(project),
    )
    expected = ref.custom(
        data,
        "count",
        "assignee",
        project,
        keep=lambda t: data.states[t["state_id"]].name == "In Progress" and t["priority"] == "high",
    )
    assert got["points"] == expected and expected
    with_pql = get(
        client,
        dataset,
        "custom",
        dimension="kind",
        metric="open",
        filter="priority IN (high, urgent) AND assignee IS NOT EMPTY",
    )
    assert with_pql["points"] == ref.custom(
        data,
        "open",
        "kind",
        keep=lambda t: t["priority"] in ("high", "urgent") and t["assignee_id"] is not None,
    )
