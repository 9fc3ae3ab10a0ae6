"""The demo's dashboards: one shared with the workspace, one private to the owner
(briefly shared by mistake), and a scratch pad made and deleted."""

from __future__ import annotations

from workspace.analytics.dashboards.models import Dashboard, Visibility
from workspace.analytics.dashboards.service import (
    create_dashboard,
    delete_dashboard,
    set_visibility,
    update_dashboard,
)
from workspace.analytics.dashboards.widgets import (
    add_widget,
    remove_widget,
    reorder_widgets,
    update_widget,
)
from workspace.seed.demo import Demo

DASHBOARDS = {
    "shared": (
        "Delivery overview",
        None,
        [
            dict(title="Open work by status", chart_type="bar", metric="open", dimension="status"),
            dict(
                title="Completed by project", chart_type="donut", metric="done", dimension="project"
            ),
            dict(
                title="Open bugs by priority",
                chart_type="bar",
                metric="open",
                dimension="priority",
                filter="kind = bug",
            ),
            dict(title="Work by kind", chart_type="pie", metric="count", dimension="kind"),
            dict(
                title="Who has open work",
                chart_type="table",
                metric="open",
                dimension="assignee",
            ),
        ],
    ),
    "private": (
        "My week",
        "assignee = currentUser()",
        [
            dict(
                title="My tasks not completed",
                chart_type="number",
                metric="open",
                dimension="status",
            ),
            dict(
                title="My urgent and high",
                chart_type="bar",
                metric="open",
                dimension="priority",
                filter="priority IN (urgent, high)",
            ),
            dict(
                title="My work by project", chart_type="donut", metric="count", dimension="project"
            ),
            dict(title="What I finished", chart_type="bar", metric="done", dimension="kind"),
        ],
    ),
}


def dashboards(demo: Demo) -> None:
    owner = demo.owner
    made: dict[str, Dashboard] = {}
    for i, (key, (name, pql, widgets)) in enumerate(DASHBOARDS.items()):
        with demo.at(28 - i * 3):
            dashboard = create_dashboard(demo.org, owner.id, name + " (draft)", pql)
            for widget in widgets:
                add_widget(dashboard, demo.org, owner.id, widget)
        made[key] = dashboard
        with demo.at(27 - i * 3):
            update_dashboard(dashboard, demo.org, owner.id, name=name)
    shared, private = made["shared"], made["private"]
    with demo.at(26):
        set_visibility(shared, owner.id, Visibility.WORKSPACE)
    with demo.at(21):
        set_visibility(private, owner.id, Visibility.WORKSPACE)
    with demo.at(20):
        set_visibility(private, owner.id, Visibility.PRIVATE)
    with demo.at(16):
        spare = add_widget(shared, demo.org, owner.id, {"title": "Scratch"})
    with demo.at(15):
        update_widget(shared.widgets[0], demo.org, owner.id, {"span": 2})
        remove_widget(shared, spare, owner.id)
    with demo.at(12):
        ids = [w.id for w in shared.widgets]
        reorder_widgets(shared, owner.id, [ids[0], ids[2], ids[1], *ids[3:]])
    with demo.at(9):
        scratch = create_dashboard(demo.org, owner.id, "Scratch pad")
    with demo.at(8):
        delete_dashboard(scratch, owner.id)
