"""Drill-down: every figure's link opens a task list showing exactly the tasks the
figure counted (workspace/analytics/drill.py), for every dimension and metric, with a
dashboard filter, a view filter and a widget filter all set; on SQLite and PostgreSQL.

Expected figures and task sets come from the plain-Python reference
(tests/analytics/reference.py) and PQL evaluator (tests/analytics/pql_eval.py), not from
the SQL under test."""

from __future__ import annotations

import html
import re
import uuid
from collections import Counter
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.analytics import reference
from tests.analytics.pql_eval import Evaluator
from tests.conftest import login
from tests.factories import add_widget, new_dashboard
from workspace.analytics import drill
from workspace.analytics.pql import parse

DIMENSIONS = ["status", "priority", "kind", "assignee", "project"]
METRICS = ["count", "done", "open"]
DASHBOARD_FILTER = "kind != epic"
#: An OR, so a missing parenthesis around a layer would change the count.
VIEW_FILTER = "priority IN (urgent, high, medium) OR dueDate IS EMPTY"
WIDGET_FILTER = 'NOT title ~ "a" OR statusCategory = started'

LINK = re.compile(r'<a class="drill-link" href="([^"]+)"[^>]*>([^<]+)</a>')
ROW = re.compile(
    r'<tr><td>([^<]*)</td><td class="num">(?:<a class="drill-link" href="([^"]+)"[^>]*>)?([\d,]+)'
)
CARD = re.compile(
    r'<a class="card stat drill-link" href="([^"]+)"[^>]*>'
    r'.*?<div class="stat-value[^"]*">([\d,]+)</div></a>'
)
TASK_ROW = re.compile(r'<tr id="task-([0-9a-f-]{36})"')


def _get(client, url: str) -> str:
    resp = client.get(url, follow_redirects=True)
    assert resp.status_code == 200, (url, resp.get_data(as_text=True)[:800])
    return resp.get_data(as_text=True)


def listed(client, href: str) -> tuple[int, set[str]]:
    """What the list a link opens shows: its count and every task on all its pages.

    The org task search states the count; a project's list shows 50 rows and "Show
    more (N left)", so the count is read from both and checked against the rows."""
    href = html.unescape(href)
    parts = urlsplit(href)
    args = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert set(args) == {"pql"}, href
    assert args["pql"].startswith("isCounted() AND") or args["pql"] == "isCounted()"
    ids: set[str] = set()
    shown = None
    offset = 0
    while True:
        page = _get(
            client, f"{parts.path}?{urlencode(args | ({'offset': offset} if offset else {}))}"
        )
        found = TASK_ROW.findall(page)
        if offset == 0:
            total = re.search(r"data-task-total>([\d,]+)<", page)
            more = re.search(r"Show more \((\d+) left\)", page)
            if total:
                shown = int(total.group(1).replace(",", ""))
            else:
                shown = len(found) + (int(more.group(1)) if more else 0)
        ids |= set(found)
        if not found or len(ids) >= shown:
            break
        offset += 50
    assert len(ids) == shown, (href, len(ids), shown)
    return shown, ids


@pytest.fixture
def world(app, client, dataset):
    """A dashboard with a widget per dimension and metric (a table, so each group is a
    link), the three filter layers, some widgets scoped to a project; plus the
    reference rows."""
    org = dataset.org
    web = str(dataset.project_ids[0])
    board = new_dashboard(client, org, name="Drill", pql_filter=DASHBOARD_FILTER)
    widgets = []
    for dimension in DIMENSIONS:
        for metric in METRICS:
            project = web if metric == "open" and dimension != "project" else None
            body = dict(
                title=f"{metric} by {dimension}",
                chart_type="table",
                metric=metric,
                dimension=dimension,
                filter=WIDGET_FILTER,
            )
            if project:
                body["project_id"] = project
            widgets.append(
                (add_widget(client, org, board["id"], **body), dimension, metric, project)
            )
    headline = add_widget(
        client,
        org,
        board["id"],
        title="Headline",
        chart_type="number",
        metric="done",
        dimension="status",
        filter=WIDGET_FILTER,
    )
    with app.app_context():
        data = reference.load(org.org_id)
        now = datetime.now(UTC)
        evaluate = Evaluator(data, data.today(now), org.owner_id)
        layers = [parse(DASHBOARD_FILTER), parse(VIEW_FILTER), parse(WIDGET_FILTER)]

        def keep(t):
            return all(evaluate(node, t) for node in layers)

        expected = {}
        for w, dimension, metric, project in widgets:
            pid = uuid.UUID(project) if project else None
            groups: dict[str, set[str]] = {}
            for t in data.counted(pid):
                if metric == "done" and t["state_category"] != "completed":
                    continue
                if metric == "open" and t["state_category"] == "completed":
                    continue
                if keep(t):
                    key = reference.dimension_key(data, t, dimension)
                    groups.setdefault(reference.label(data, dimension, key), set()).add(
                        str(t["id"])
                    )
            expected[w["id"]] = groups
        done = {
            str(t["id"]) for t in data.counted() if t["state_category"] == "completed" and keep(t)
        }
    login(client, org.owner_email)
    return dict(org=org, board=board, widgets=widgets, expected=expected, headline=(headline, done))


def test_every_dashboard_bucket_opens_exactly_its_tasks(client, world):
    org, board = world["org"], world["board"]
    page = _get(
        client,
        f"/o/{org.slug}/dashboards/{board['id']}/bodies?{urlencode({'filter': VIEW_FILTER})}",
    )
    bodies = dict(
        re.findall(r'id="body-([0-9a-f-]{36})" hx-swap-oob="true">(.*?)</div>\n', page, re.S)
    )
    seen = Counter()
    for w, dimension, metric, project in world["widgets"]:
        body = bodies[w["id"]]
        rows = ROW.findall(body)
        expected = world["expected"][w["id"]]
        assert rows, (dimension, metric)
        # Labels are compared without case: the table writes "Urgent" for urgent.
        assert {html.unescape(k).lower(): int(v.replace(",", "")) for k, _, v in rows} == {
            k.lower(): len(ids) for k, ids in expected.items()
        }
        for key, href, value in rows:
            assert href, f"no link on {key!r} of {metric} by {dimension}"
            count, ids = listed(client, href)
            assert count == int(value), (dimension, metric, key, html.unescape(href))
            by_label = {k.lower(): v for k, v in expected.items()}
            assert ids == by_label[html.unescape(key).lower()], (dimension, metric, key)
            target = urlsplit(html.unescape(href)).path
            if project or dimension == "project":
                assert "/projects/" in target
            else:
                assert target == f"/o/{org.slug}/tasks"
            seen[dimension, metric] += 1
    assert set(seen) == {(d, m) for d in DIMENSIONS for m in METRICS}
    # The headline number: every bucket together.
    headline, done = world["headline"]
    body = bodies[headline["id"]]
    ((href, value),) = LINK.findall(body)
    count, ids = listed(client, href)
    assert count == int(value.replace(",", "")) == len(done) and ids == done


def test_the_expression_reads_as_the_layers_and_the_bucket(client, world):
    org, board = world["org"], world["board"]
    widget = next(w for w, d, m, p in world["widgets"] if d == "assignee" and m == "done")
    page = _get(
        client,
        f"/o/{org.slug}/dashboards/{board['id']}/widgets/{widget['id']}?"
        + urlencode({"filter": VIEW_FILTER}),
    )
    rows = {
        html.unescape(key): parse_qs(urlsplit(html.unescape(h)).query)["pql"][0]
        for key, h, _ in ROW.findall(page)
    }
    prefix = (
        f"isCounted() AND ({DASHBOARD_FILTER}) AND ({VIEW_FILTER}) AND ({WIDGET_FILTER}) "
        "AND statusCategory = completed AND "
    )
    assert rows and all(pql.startswith(prefix) for pql in rows.values())
    assert rows.pop("Unassigned") == prefix + "assignee IS EMPTY"
    assert all(re.fullmatch(r'assignee = "[^"]+@[^"]+"', p[len(prefix) :]) for p in rows.values())


def _analytics_links(client, org, tab: str, **args) -> list[tuple[str, int]]:
    page = _get(client, f"/o/{org.slug}/analytics/{tab}?{urlencode(args)}")
    found = CARD.findall(page) + LINK.findall(page)
    return [(href, int(v.replace(",", ""))) for href, v in found]


@pytest.mark.parametrize("scoped", [False, True], ids=["org", "project"])
def test_overview_flow_workload_and_pivot_figures_open_their_tasks(client, world, dataset, scoped):
    org = world["org"]
    args = {"project_id": str(dataset.project_ids[1])} if scoped else {}
    links = _analytics_links(client, org, "overview", **args)
    assert len(links) == 3 + 5 + 5 + 4  # cards, categories, priorities, kinds
    for href, value in links:
        assert listed(client, href)[0] == value, html.unescape(href)
    links = _analytics_links(client, org, "flow", **args)
    assert len(links) == 3  # backlog, unstarted, started
    for href, value in links:
        assert listed(client, href)[0] == value, html.unescape(href)
    links = _analytics_links(client, org, "workload", **args)
    assert links
    for href, value in links[:8]:
        assert listed(client, href)[0] == value, html.unescape(href)
    for row, col in (("assignee", "status"), ("project", "priority"), ("kind", "assignee")):
        links = _analytics_links(client, org, "pivot", row=row, col=col, **args)
        assert links
        for href, value in links:
            assert listed(client, href)[0] == value, (row, col, html.unescape(href))


@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize("metric", METRICS)
def test_custom_chart_points_open_their_tasks(client, world, dimension, metric):
    org = world["org"]
    links = _analytics_links(
        client,
        org,
        "custom",
        metric=metric,
        dimension=dimension,
        priority="high",
        filter=VIEW_FILTER,
    )
    assert links
    for href, value in links:
        assert listed(client, href)[0] == value, html.unescape(href)


def test_values_are_quoted_only_when_needed():
    assert drill.value("high") == "high"
    assert drill.value("In Progress") == '"In Progress"'
    assert drill.value('say "hi" \\ bye') == '"say \\"hi\\" \\\\ bye"'
    assert drill.value("and") == '"and"'
    assert drill.value("ada@example.com") == '"ada@example.com"'
    assert parse(drill.expression(drill.status_clause('a "b"'), drill.assignee_clause(None)))


def test_a_link_longer_than_a_filter_may_be_is_left_out(app):
    with app.test_request_context():
        assert drill.href("acme", None, "x" * 2001) is None
        assert drill.href("acme", None, "isCounted()") == "/o/acme/tasks?pql=isCounted()"
