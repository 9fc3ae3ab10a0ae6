"""PQL's ``text ~ "login flow"`` (docs/pql.md, docs/search.md) on both databases: it
reads the search index (keys, titles, descriptions, comments), composes with every
other condition under AND, OR and NOT, and drills down like any filter."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.factories import create_project, login, new_task
from workspace.analytics.pql import PQLError, compile_pql, parse
from workspace.core.models import Task
from workspace.extensions import db


@pytest.mark.parametrize(
    "text,expected",
    [
        ('text = "login"', "operator = does not apply to text; use !~, ~"),
        ("text ~ 2026-01-01", "compares with a name or a quoted string"),
        ('text IN ("a")', "operator IN does not apply to text"),
    ],
)
def test_text_takes_only_contains_and_words(text, expected):
    with pytest.raises(PQLError) as info:
        parse(text)
    assert expected in info.value.message


def test_text_composes_with_every_condition(client, acme, app):
    project = create_project(client, acme)
    new_task(client, acme, project, title="Login flow", priority="high", kind="bug")
    new_task(client, acme, project, title="Export", description="after the login flow")
    quiet = new_task(client, acme, project, title="Settings page", priority="high")
    client.post(
        acme.url(f"/tasks/{quiet['id']}/comments"),
        json={"body": "Blocked by the LOGIN rewrite"},
        headers=acme.headers,
    )

    def keys(pql):
        with app.app_context():
            condition = compile_pql(pql, acme.org_id, acme.owner_id)
            rows = db.session.scalars(select(Task.sequence).where(condition)).all()
            return sorted(rows)

    assert keys('text ~ "login"') == [1, 2, 3]
    assert keys('text ~ "login flow"') == [1, 2]
    assert keys("text ~ login AND priority = high") == [1, 3]
    assert keys("text ~ login AND NOT kind = bug") == [2, 3]
    assert keys('text !~ "flow" AND priority = high') == [3]
    assert keys('text ~ "rewrite" OR text ~ "export"') == [2, 3]
    assert keys('(text ~ "web-1" OR title ~ "settings") AND priority IN (high)') == [1, 3]
    with app.app_context(), pytest.raises(PQLError) as info:
        compile_pql('kind = bug AND text ~ "(*)"', acme.org_id, acme.owner_id)
    assert "text ~ needs at least one word" in info.value.message
    assert (info.value.line, info.value.column) == (1, 23)

    # Drill-down: the org task list takes the same filter.
    login(client, acme.owner_email)
    drill = {"pql": "text ~ login AND priority = high"}
    page = client.get(f"/o/{acme.slug}/tasks", query_string=drill)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'data-task-key="WEB-1"' in html and 'data-task-key="WEB-3"' in html
    assert 'data-task-key="WEB-2"' not in html
