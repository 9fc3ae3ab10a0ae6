"""One meaning per word (issue 28): the home page's "Active tasks" is Flow's work in
progress (backlog, unstarted, started), a different name from the charts' open
metric, which counts cancelled tasks too; each figure says what it counts in visible
text and opens its tasks."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from tests.conftest import login
from tests.factories import (
    add_widget,
    get_json,
    make_org,
    new_dashboard,
    new_task,
    setup_project,
    state_in,
)


def _stat(html: str, label: str) -> int:
    found = re.search(rf'stat-label">{label}</div><div class="stat-value">(\d+)<', html)
    assert found, label
    return int(found.group(1))


def test_home_active_is_flow_wip_and_named_apart_from_open(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    for category, n in (("backlog", 2), ("started", 3), ("completed", 4), ("cancelled", 5)):
        for i in range(n):
            new_task(
                client, org, project, title=f"{category} {i}", state_id=state_in(states, category)
            )
    login(client, org.owner_email)
    html = client.get(f"/o/{org.slug}/").get_data(as_text=True)

    flow = get_json(client, org, "/analytics/flow")
    open_metric = get_json(client, org, "/analytics/custom", metric="open", dimension="kind")
    assert _stat(html, "Active tasks") == flow["total_wip"] == 5
    assert sum(p["value"] for p in open_metric["points"]) == 10, "open counts cancelled too"
    assert _stat(html, "Completed") == 4
    # No figure on the home page is called "open", and the page says why the charts'
    # open metric is larger, in text (not a tooltip).
    assert "Open tasks" not in html and "the same as in Analytics" not in html
    assert "Backlog, unstarted or started" in html
    assert "counts cancelled tasks too" in html
    assert 'aria-describedby="count-active-what"' in html

    # Each count opens exactly its tasks in the org task search.
    href = re.search(r'href="([^"]+)" aria-describedby="count-active-what"', html).group(1)
    pql = parse_qs(urlparse(href.replace("&amp;", "&")).query)["pql"][0]
    assert pql == "isCounted() AND statusCategory IN (backlog, unstarted, started)"
    listed = client.get(href.replace("&amp;", "&")).get_data(as_text=True)
    assert "<strong data-task-total>5</strong> tasks match" in listed
    done_href = re.search(r'href="([^"]+)" aria-describedby="count-completed-what"', html).group(1)
    listed = client.get(done_href.replace("&amp;", "&")).get_data(as_text=True)
    assert "<strong data-task-total>4</strong> tasks match" in listed


def test_flow_says_which_categories_it_counts(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    project, states = setup_project(client, org)
    new_task(client, org, project, state_id=state_in(states, "started"))
    login(client, org.owner_email)
    html = client.get(f"/o/{org.slug}/analytics/flow").get_data(as_text=True)
    assert "Backlog, unstarted and started tasks: the home page&#39;s Active tasks" in html or (
        "Backlog, unstarted and started tasks: the home page's Active tasks" in html
    )
    assert "Completed and cancelled tasks are closed work and are not counted" in html


def test_each_metric_says_what_it_counts_where_it_is_chosen(app, client):
    org = make_org(app, "Acme", "owner@acme.test")
    login(client, org.owner_email)
    custom = client.get(f"/o/{org.slug}/analytics/custom").get_data(as_text=True)
    words = "Not completed (open): backlog, unstarted, started and cancelled."
    assert words in custom and 'aria-describedby="f-metric-help"' in custom
    dashboard = new_dashboard(client, org)
    for metric in ("count", "done", "open"):
        add_widget(
            client, org, dashboard["id"], title=f"M {metric}", metric=metric, dimension="kind"
        )
    page = client.get(f"/o/{org.slug}/dashboards/{dashboard['id']}").get_data(as_text=True)
    for words in (
        "Counts every task",
        "Counts completed tasks",
        "Counts tasks not completed, cancelled included",
    ):
        assert f'class="widget-what muted small">{words}</p>' in page
