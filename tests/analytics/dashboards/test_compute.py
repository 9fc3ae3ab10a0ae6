"""Compute: the three filter layers AND together, the ephemeral one is never saved,
results equal the analytics custom chart, and widgets share statements."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from workspace.analytics import rollups
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.query import DashboardQuery
from workspace.analytics.scope import make_scope
from workspace.core.models import Org
from workspace.extensions import db


def _compute(client, world: World, dash_id: str, view_filter: str | None = None, who=None):
    who = who or world.acme
    resp = client.get(
        world.url(f"/dashboards/{dash_id}/compute"),
        query_string={"filter": view_filter} if view_filter else {},
        headers=who.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _points(widget: dict) -> dict[str, int]:
    return {p["key"]: p["value"] for p in widget["points"]}


def test_a_task_excluded_by_any_one_layer_is_not_counted(client, world: World):
    """Six Acme tasks; each layer removes a different one of the remaining ones:
    dashboard: project = WEB (drops the two OPS tasks), view: priority = high (drops
    'Typo on page'), widget: kind = bug (drops 'Add SSO'). Left: 'Login fails' (Todo)
    and 'Old crash' (Done)."""
    dash = new_dashboard(client, world.acme, pql_filter="project = WEB")
    add_widget(client, world.acme, dash["id"], title="Bugs", filter="kind = bug")
    add_widget(client, world.acme, dash["id"], title="All")

    layered = _compute(client, world, dash["id"], "priority = high")["widgets"]
    assert _points(layered[0]) == {"Todo": 1, "Done": 1}
    # Without the widget layer: 'Add SSO' (In Progress) comes back.
    assert _points(layered[1]) == {"Todo": 1, "Done": 1, "In Progress": 1}
    # Without the view layer: 'Typo on page' (Done, low) comes back.
    assert _points(_compute(client, world, dash["id"])["widgets"][0]) == {"Todo": 1, "Done": 2}
    # Without the dashboard layer: OPS's 'Disk full' (Todo, high bug) comes back.
    client.patch(
        world.url(f"/dashboards/{dash['id']}"),
        json={"pql_filter": None},
        headers=world.acme.headers,
    )
    unlayered = _compute(client, world, dash["id"], "priority = high")["widgets"][0]
    assert _points(unlayered) == {"Todo": 2, "Done": 1}


def test_the_ephemeral_filter_never_changes_the_saved_dashboard(client, world: World):
    dash = new_dashboard(client, world.acme, pql_filter="project = WEB")
    add_widget(client, world.acme, dash["id"], filter="kind = bug")
    before = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    body = _compute(client, world, dash["id"], "priority = low")
    assert body["filter"] == "priority = low"
    assert (
        client.get(
            world.url(f"/dashboards/{dash['id']}/export.html"),
            query_string={"filter": "priority = low"},
            headers=world.acme.headers,
        ).status_code
        == 200
    )
    after = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert after.get_json() == before.get_json()
    assert after.get_json()["pql_filter"] == "project = WEB"


def test_a_bad_view_filter_is_a_422_naming_the_position(client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"])
    resp = client.get(
        world.url(f"/dashboards/{dash['id']}/compute"),
        query_string={"filter": "priority = high AND"},
        headers=world.acme.headers,
    )
    assert resp.status_code == 422
    assert "line 1, column 20" in resp.get_json()["detail"]
    assert resp.get_json()["errors"][0]["field"] == "filter"


def test_points_are_largest_first_and_tagged_with_the_chart_type(client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], chart_type="donut", dimension="priority")
    (widget,) = _compute(client, world, dash["id"])["widgets"]
    assert widget["chart_type"] == "donut"
    assert [p["value"] for p in widget["points"]] == [4, 1, 1]
    assert widget["points"][0]["key"] == "high"


def test_currentuser_in_a_shared_dashboard_means_the_viewer(client, world: World, app):
    """A widget filter naming currentUser() counts the viewer's tasks, not the owner's."""
    dash = new_dashboard(client, world.acme)
    client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    add_widget(
        client, world.acme, dash["id"], chart_type="number", filter="assignee = currentUser()"
    )
    mine = client.get(world.url("/projects"), headers=world.acme.headers).get_json()
    tasks = client.get(
        world.url(f"/projects/{mine[0]['id']}/tasks"), headers=world.acme.headers
    ).get_json()
    first = (tasks["items"] if isinstance(tasks, dict) else tasks)[0]
    client.patch(
        world.url(f"/tasks/{first['id']}"),
        json={"assignee_id": str(world.member.owner_id)},
        headers=world.acme.headers,
    )
    as_owner = _compute(client, world, dash["id"])["widgets"][0]
    as_member = _compute(client, world, dash["id"], who=world.member)["widgets"][0]
    assert sum(p["value"] for p in as_owner["points"]) == 0
    assert sum(p["value"] for p in as_member["points"]) == 1


SPECS = [
    ("count", "status", None, None),
    ("done", "status", None, None),
    ("open", "priority", None, "kind = bug"),
    ("count", "kind", "WEB", None),
    ("count", "assignee", None, None),
    ("open", "project", None, "priority in (high, medium)"),
]


def test_shared_computation_equals_the_analytics_custom_chart(app, world: World):
    """Every widget's points equal rollups.custom_chart for the same inputs."""
    from workspace.analytics.pql import compile_pql

    with app.app_context():
        org = db.session.get(Org, world.acme.org_id)
        project_ids = {"WEB": world.web_id}
        specs = [
            WidgetSpec(
                key=str(i),
                title=str(i),
                chart_type="bar",
                metric=m,
                dimension=d,
                project_id=project_ids.get(p),
                filter=f,
            )
            for i, (m, d, p, f) in enumerate(SPECS)
        ]
        query = DashboardQuery(org, world.acme.owner_id, view_filter="kind != epic")
        results = query.compute(specs)
        for spec, result in zip(specs, results, strict=True):
            scope = make_scope(org, spec.project_id)
            conditions = [compile_pql("kind != epic", org.id, world.acme.owner_id, scope=scope)]
            if spec.filter:
                conditions.append(
                    compile_pql(spec.filter, org.id, world.acme.owner_id, scope=scope)
                )
            expected = rollups.custom_chart(scope, spec.metric, spec.dimension, conditions)
            assert result.points == expected, spec
            assert result.points  # every spec here has data: the comparison means something


@pytest.mark.parametrize("widgets", [1, 12])
def test_statements_grow_with_dimensions_not_widgets(app, world: World, widgets):
    """12 widgets over two dimensions cost two GROUP BY statements, like 2 widgets."""
    with app.app_context():
        org = db.session.get(Org, world.acme.org_id)
        specs = [
            WidgetSpec(
                key=str(i),
                title=str(i),
                chart_type="bar",
                metric=("count", "done", "open")[i % 3],
                dimension=("status", "priority")[i % 2],
                filter=None if i < 6 else f"kind != epic AND title !~ 'zz{i}'",
            )
            for i in range(widgets)
        ]
        statements: list[str] = []

        def count(conn, cursor, statement, *args):
            if "GROUP BY" in statement:
                statements.append(statement)

        event.listen(db.engine, "before_cursor_execute", count)
        try:
            results = DashboardQuery(org, world.acme.owner_id).compute(specs)
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
        assert len(statements) == min(widgets, 2)
        assert all(r.error is None for r in results)
        assert sum(p["value"] for p in results[0].points) == 6


def test_a_widget_whose_saved_filter_broke_fails_alone(app, client, world: World):
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="Fine")
    add_widget(client, world.acme, dash["id"], title="Broken", filter='status = "In Progress"')
    with app.app_context():
        from workspace.core.models import State

        for state in db.session.query(State).filter_by(name="In Progress"):
            state.name = "Doing"
        db.session.commit()
    fine, broken = _compute(client, world, dash["id"])["widgets"]
    assert fine["error"] is None and fine["points"]
    assert "In Progress" in broken["error"] and broken["points"] == []
