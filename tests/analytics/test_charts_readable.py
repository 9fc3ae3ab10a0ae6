"""Charts that read well (issue #15): one colour and one label per value on the
analytics page, dashboard widgets and the export; natural order where the axis has
one; the top N and "Other"; horizontal bars for long labels; namesakes told apart;
a workload chart that does not stack finished work onto open work."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from tests.factories import add_widget, login, new_dashboard
from workspace.analytics import charts, dimensions, palette
from workspace.analytics.dashboards.models import Widget
from workspace.core.accounts import add_member, ensure_account
from workspace.core.models import Org, State
from workspace.core.projects import create_project
from workspace.core.tasks import create_task
from workspace.extensions import db

#: (state, priority, kind, assignee index or None), per project.
TASKS = [
    ("Todo", "urgent", "bug", 0),
    ("Todo", "urgent", "bug", 1),
    ("In Progress", "urgent", "feature", 2),
    ("In Review", "high", "feature", 0),
    ("Backlog", "low", "task", None),
    ("Backlog", "low", "task", 3),
    ("Backlog", "low", "epic", 3),
    ("Done", "medium", "task", 3),
    ("Done", "none", "bug", 1),
    ("Cancelled", "low", "feature", None),
]
#: Two people share a name; the others do not.
PEOPLE = [
    ("alex.k@acme.test", "Alex Kim"),
    ("alex.kim@other.test", "Alex Kim"),
    ("bo@acme.test", "Bo Berg"),
    ("cy@acme.test", "Cyrille Montgomery-Featherstonehaugh"),
]
FIGURE = re.compile(r'<script type="application/json" id="fig-([^"]+)">(.*?)</script>', re.S)


@dataclass
class Board:
    slug: str
    api: object
    people: list[uuid.UUID]
    web_id: uuid.UUID


@pytest.fixture
def board(app, acme) -> Board:
    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        people = []
        for email, name in PEOPLE:
            account = ensure_account(email, name, email_verified=True)
            add_member(org, account)
            people.append(account.id)
        db.session.flush()
        web = create_project(acme.org_id, acme.owner_id, "Web App", "WEB")
        ops = create_project(acme.org_id, acme.owner_id, "Operations and Infrastructure", "OPS")
        db.session.flush()
        for project in (web, ops):
            states = {
                s.name: s.id
                for s in db.session.scalars(select(State).where(State.project_id == project.id))
            }
            for i, (state, priority, kind, who) in enumerate(TASKS):
                create_task(
                    project,
                    acme.owner_id,
                    title=f"T{i}",
                    state_id=states[state],
                    priority=priority,
                    kind=kind,
                    assignee_id=None if who is None else people[who],
                )
        db.session.commit()
        return Board(acme.slug, acme, people, web.id)


def figures(html: str) -> dict[str, dict]:
    """Every figure a page embeds, by its element id (``fig-<id>``)."""
    return {name: json.loads(body) for name, body in FIGURE.findall(html)}


def colours(figure: dict) -> dict[str, str]:
    """``{label on the chart: colour}`` of a bar, line or pie figure's first trace."""
    trace = figure["data"][0]
    if trace["type"] == "pie":
        return dict(zip(trace["labels"], trace["marker"]["colors"], strict=True))
    labels = trace["y"] if trace.get("orientation") == "h" else trace["x"]
    marks = trace["marker"]["color"]
    return dict(zip(labels, marks, strict=True))


def axis_labels(figure: dict) -> list[str]:
    trace = figure["data"][0]
    if trace["type"] == "pie":
        return list(trace["labels"])
    return list(trace["y"] if trace.get("orientation") == "h" else trace["x"])


def page(client, board: Board, path: str, **params) -> str:
    resp = client.get(f"/o/{board.slug}{path}", query_string=params)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    return resp.get_data(as_text=True)


def widget_figure(client, board: Board, dash: dict, widget: dict) -> dict:
    html = page(client, board, f"/dashboards/{dash['id']}/widgets/{widget['id']}")
    return figures(html)[widget["id"]]


def export_figures(client, board: Board, dash: dict) -> dict[str, dict]:
    resp = client.get(
        board.api.url(f"/dashboards/{dash['id']}/export.html"), headers=board.api.headers
    )
    assert resp.status_code == 200
    return figures(resp.get_data(as_text=True))


def test_one_colour_per_value_on_every_page_and_the_export(client, board: Board):
    login(client, board.api.owner_email)
    dash = new_dashboard(client, board.api, name="Colours")
    widgets = {
        (dim, kind): add_widget(
            client, board.api, dash["id"], title=f"{dim} {kind}", chart_type=kind, dimension=dim
        )
        for dim in ("priority", "status", "kind", "assignee", "project")
        for kind in ("bar", "donut", "line")
    }
    exported = export_figures(client, board, dash)
    overview = figures(page(client, board, "/analytics"))

    for dim in ("priority", "status", "kind", "assignee", "project"):
        custom = figures(page(client, board, "/analytics/custom", dimension=dim))["custom"]
        seen = [colours(custom)]
        for kind in ("bar", "donut", "line"):
            widget = widgets[(dim, kind)]
            seen.append(colours(widget_figure(client, board, dash, widget)))
            seen.append(colours(exported[widget["id"]]))
        if dim == "priority":
            seen.append(colours(overview["priority"]))
        if dim == "kind":
            seen.append(colours(overview["kind"]))
        first = seen[0]
        assert len(first) >= 2, (dim, first)
        for other in seen[1:]:
            assert other == first, dim
        # Different values are told apart on one chart.
        if dim in ("priority", "kind"):
            assert len(set(first.values())) == len(first), first

    custom = figures(page(client, board, "/analytics/custom", dimension="priority"))["custom"]
    assert colours(custom)["Urgent"] == palette.PRIORITY_COLORS["urgent"] == "#c53030"
    status = colours(
        figures(page(client, board, "/analytics/custom", dimension="status"))["custom"]
    )
    # Status by its category colour: the category's own state has the colour itself,
    # another state of the category a tint of it, never another category's colour.
    assert status["In Progress"] == palette.CATEGORY_COLORS["started"]
    assert status["Done"] == palette.CATEGORY_COLORS["completed"]
    assert status["In Review"] not in palette.CATEGORY_COLORS.values()
    # Projects take the palette in the order the org made them: never the same two.
    projects = colours(
        figures(page(client, board, "/analytics/custom", dimension="project"))["custom"]
    )
    assert projects == {
        "Web App": palette.PALETTE[0],
        "Operations and Infrastructure": palette.PALETTE[1],
    }
    # The overview's category chart speaks the same colours and the same label case.
    category = colours(overview["category"])
    assert category["Completed"] == palette.CATEGORY_COLORS["completed"]
    assert set(colours(overview["priority"])) <= {"Urgent", "High", "Medium", "Low", "None"}


def test_a_custom_state_takes_its_categorys_colour_on_a_dashboard(app, client, board: Board):
    with app.app_context():
        state = State(project_id=board.web_id, name="QA", category="started", position=9)
        db.session.add(state)
        db.session.flush()
        from workspace.core.models import Project

        create_task(db.session.get(Project, board.web_id), None, title="Check", state_id=state.id)
        db.session.commit()
    login(client, board.api.owner_email)
    dash = new_dashboard(client, board.api)
    widget = add_widget(client, board.api, dash["id"], chart_type="bar", dimension="status")
    shown = colours(widget_figure(client, board, dash, widget))
    started = palette.CATEGORY_COLORS["started"]
    assert shown["QA"] == palette.status_color("QA", "started") != palette.status_color("QA")
    assert shown["QA"] not in palette.PALETTE and shown["QA"] != started
    # A caller holding only the custom chart's points gets the same colour from the org.
    points = board_points(client, board, "status")
    with app.app_context():
        drawable = dimensions.drawable(board.api.org_id, points)
        figure = charts.points_figure(drawable, "bar").to_plotly_json()
    assert colours(figure)["QA"] == shown["QA"]
    assert axis_labels(figure).index("QA") > axis_labels(figure).index("In Review")


ORDERS = {
    "priority": ["Urgent", "High", "Medium", "Low", "None"],
    "kind": ["Task", "Bug", "Feature", "Epic"],
    "status": ["Backlog", "Todo", "In Progress", "In Review", "Done", "Cancelled"],
}


@pytest.mark.parametrize("chart_type", ["bar", "line", "area"])
def test_natural_order_on_the_axis(client, board: Board, chart_type: str):
    """The API keeps points largest first; the chart puts them in the axis's order."""
    login(client, board.api.owner_email)
    dash = new_dashboard(client, board.api)
    for dim, expected in ORDERS.items():
        points = board_points(client, board, dim)
        assert [p["value"] for p in points] == sorted((p["value"] for p in points), reverse=True)
        assert [palette.label(dim, p["key"]) for p in points] != expected
        widget = add_widget(client, board.api, dash["id"], chart_type=chart_type, dimension=dim)
        assert axis_labels(widget_figure(client, board, dash, widget)) == expected, dim
    # No natural order: largest first (ties by name).
    for dim in ("assignee", "project"):
        widget = add_widget(client, board.api, dash["id"], chart_type=chart_type, dimension=dim)
        figure = widget_figure(client, board, dash, widget)
        trace = figure["data"][0]
        values = list(trace["x"] if trace.get("orientation") == "h" else trace["y"])
        assert values == sorted(values, reverse=True), (dim, values)


def board_points(client, board: Board, dimension: str) -> list[dict]:
    resp = client.get(
        board.api.url("/analytics/custom"),
        query_string={"dimension": dimension},
        headers=board.api.headers,
    )
    assert resp.status_code == 200
    return resp.get_json()["points"]


def test_dates_in_time_order():
    points = [
        {"key": "2026-03-02", "value": 9},
        {"key": "2026-01-05", "value": 4},
        {"key": "2026-02-02", "value": 1},
    ]
    figure = charts.points_figure(points, "line").to_plotly_json()
    assert list(figure["data"][0]["x"]) == ["2026-01-05", "2026-02-02", "2026-03-02"]


def many(n: int) -> list[dict]:
    return [
        {"key": f"P{i:02d}", "value": 40 - i, "id": str(uuid.uuid4()), "href": f"/tasks?p={i}"}
        for i in range(n)
    ]


@pytest.mark.parametrize("chart_type", ["bar", "line", "donut", "pie"])
def test_top_n_and_other_add_up_to_the_total(chart_type: str):
    points = many(14)
    figure = charts.points_figure(points, chart_type, dimension="assignee").to_plotly_json()
    trace = figure["data"][0]
    labels = axis_labels(figure)
    values = list(
        trace["values"]
        if chart_type in ("donut", "pie")
        else (trace["x"] if trace.get("orientation") == "h" else trace["y"])
    )
    assert len(labels) == 11 and labels[-1] == "Other"
    assert labels[:10] == [f"P{i:02d}" for i in range(10)]
    assert sum(values) == sum(p["value"] for p in points)
    assert values[-1] == sum(p["value"] for p in points[10:])
    # Drill-down links ride along; "Other" has none.
    assert list(trace["customdata"]) == [*(p["href"] for p in points[:10]), None]
    assert colours(figure)["Other"] == palette.OTHER_COLOR


def test_a_widget_sets_its_own_top_n(app, client, board: Board):
    login(client, board.api.owner_email)
    dash = new_dashboard(client, board.api)
    widget = add_widget(client, board.api, dash["id"], chart_type="bar", dimension="priority")
    with app.app_context():
        db.session.get(Widget, uuid.UUID(widget["id"])).top_n = 2
        db.session.commit()
    figure = widget_figure(client, board, dash, widget)
    trace = figure["data"][0]
    total = sum(p["value"] for p in board_points(client, board, "priority"))
    # The two largest, in the axis's natural order, then the rest.
    assert axis_labels(figure) == ["Urgent", "Low", "Other"]
    assert sum(trace["y"]) == total == 20
    assert trace["y"][-1] == total - 8 - 6


def test_long_or_many_labels_turn_bars_horizontal_with_full_names_on_hover():
    short = [{"key": k, "value": v} for k, v in (("Web", 3), ("Ops", 2))]
    assert "orientation" not in charts.points_figure(short).to_plotly_json()["data"][0]

    long_name = "Operations and Infrastructure and Everything Else"
    figure = charts.points_figure(
        [{"key": long_name, "value": 3}, {"key": "Web", "value": 1}], dimension="project"
    ).to_plotly_json()
    trace = figure["data"][0]
    assert trace["orientation"] == "h"
    assert list(trace["y"]) == [long_name, "Web"]  # the hover reads the full label
    ticks = list(figure["layout"]["yaxis"]["ticktext"])
    assert ticks[0].endswith("…") and len(ticks[0]) <= charts.AXIS_LABEL
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"  # largest on top

    nine = [{"key": f"S{i}", "value": 9 - i} for i in range(9)]
    assert charts.points_figure(nine, dimension="status").to_plotly_json()["data"][0][
        "orientation"
    ] == ("h")


def test_namesakes_are_told_apart_once_by_short_email(client, board: Board):
    keys = [p["key"] for p in board_points(client, board, "assignee")]
    assert "Alex Kim (alex.k@)" in keys and "Alex Kim (alex.kim@)" in keys
    assert "Bo Berg" in keys and not any("<" in k for k in keys)
    login(client, board.api.owner_email)
    custom = figures(page(client, board, "/analytics/custom", dimension="assignee"))["custom"]
    trace = custom["data"][0]
    assert trace["orientation"] == "h"
    assert "Alex Kim (alex.k@)" in trace["y"] and "Alex Kim (alex.kim@)" in trace["y"]
    ticks = list(custom["layout"]["yaxis"]["ticktext"])
    assert "Alex Kim (alex.k@)" in ticks and "Alex Kim (alex.kim@)" in ticks
    # The two are two colours, each the same wherever that person is drawn.
    shown = colours(custom)
    assert shown["Alex Kim (alex.k@)"] == palette.color(
        "assignee", "Alex Kim (alex.k@)", id=str(board.people[0])
    )

    # The workload chart names them the same way.
    workload = figures(page(client, board, "/analytics/workload"))["workload"]
    names = list(workload["data"][0]["y"])
    assert "Alex Kim (alex.k@)" in names and "Alex Kim (alex.kim@)" in names


def test_person_labels_fall_back_to_the_whole_email_when_short_ones_collide():
    labels = palette.person_labels(
        [(1, "Sam Lee", "sam@a.test"), (2, "Sam Lee", "sam@b.test"), (3, "Sam Li", "s@x")]
    )
    assert labels == {1: "Sam Lee (sam@a.test)", 2: "Sam Lee (sam@b.test)", 3: "Sam Li"}


def test_workload_keeps_completed_work_out_of_the_open_bar(client, board: Board):
    login(client, board.api.owner_email)
    figure = figures(page(client, board, "/analytics/workload"))["workload"]
    rows = client.get(board.api.url("/analytics/workload"), headers=board.api.headers).get_json()
    traces = {t["name"]: t for t in figure["data"]}
    assert set(traces) == {"In progress", "Other open", "Completed (30 days)"}
    assert figure["layout"]["barmode"] == "group"
    in_progress, rest, done = (
        traces["In progress"],
        traces["Other open"],
        traces["Completed (30 days)"],
    )
    # In progress and the rest of open work share one bar whose end is the open count.
    assert in_progress["offsetgroup"] == rest["offsetgroup"] != done["offsetgroup"]
    assert list(rest["base"]) == list(in_progress["x"])
    ends = [a + b for a, b in zip(in_progress["x"], rest["x"], strict=True)]
    assert ends == [r["open"] for r in rows]
    # Completed work is its own bar starting at zero.
    assert "base" not in done and list(done["x"]) == [r["completed_30d"] for r in rows]


def test_overview_and_flow_speak_one_label_case(client, board: Board):
    login(client, board.api.owner_email)
    overview = figures(page(client, board, "/analytics"))
    assert axis_labels(overview["kind"]) == ["Task", "Bug", "Feature", "Epic"]
    assert axis_labels(overview["category"])[0] == "Backlog"
    flow = figures(page(client, board, "/analytics/flow"))["flow"]
    assert axis_labels(flow) == ["Backlog", "Unstarted", "Started"]


def test_drill_down_links_ride_in_customdata():
    values = {"urgent": 2, "high": 0, "low": 3}
    bar = charts.breakdown_bar(values, hrefs={"urgent": "/t?u", "low": "/t?l"}).to_plotly_json()
    assert list(bar["data"][0]["customdata"]) == ["/t?u", None, "/t?l"]
    assert list(bar["data"][0]["x"]) == ["Urgent", "High", "Low"]
    pie = charts.donut(values, hrefs={"urgent": "/t?u"}).to_plotly_json()
    assert list(pie["data"][0]["customdata"]) == ["/t?u", None]  # empty slices left out
    flow = charts.flow_figure(
        {"categories": [{"category": "started", "wip": 2, "avg_age_days": 1.5, "href": "/t?s"}]}
    ).to_plotly_json()
    assert [list(c) for c in flow["data"][0]["customdata"]] == [["/t?s", 1.5]]
    rows = [
        {"name": "Eve", "email": "e@x", "kind": "agent", "open": 3, "in_progress": 1,
         "completed_30d": 0, "href": "/t?e", "href_in_progress": "/t?e&started"},
    ]  # fmt: skip
    workload = charts.workload_figure(rows).to_plotly_json()
    # Each series leads to the tasks it counts; "completed in 30 days" has no exact PQL.
    links = {t["name"]: list(t["customdata"]) for t in workload["data"]}
    assert links == {
        "In progress": ["/t?e&started"],
        "Other open": ["/t?e"],
        "Completed (30 days)": [None],
    }
    assert list(workload["data"][0]["y"]) == ["Eve (agent)"]
