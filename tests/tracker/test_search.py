"""Task search (docs/search.md) on both databases: what a person searching notices
(the best match first, the words marked, hidden tasks never shown), that the index
follows every write in the writing transaction, PQL's ``text ~``, and that no typed
input breaks it."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Uuid, bindparam, text

from tests.factories import assert_problem, create_project, login, new_task
from workspace.extensions import db


def _search(client, org, q, **params):
    resp = client.get(org.url("/search"), query_string={"q": q, **params}, headers=org.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()["results"]


def _keys(client, org, q, **params):
    return [r["key"] for r in _search(client, org, q, **params)]


def _comment(client, org, task, body):
    resp = client.post(
        org.url(f"/tasks/{task['id']}/comments"), json={"body": body}, headers=org.headers
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


@pytest.fixture
def web(client, acme):
    """WEB-1..4: the words in a title, a description only, a comment only, nowhere."""
    project = create_project(client, acme)
    title = new_task(client, acme, project, title="Login flow redesign")
    described = new_task(
        client, acme, project, title="Polish header", description="The login flow loses focus."
    )
    commented = new_task(client, acme, project, title="Billing page")
    _comment(client, acme, commented, "Customers report the login flow times out")
    other = new_task(client, acme, project, title="Invoice export")
    return project, [title, described, commented, other]


def test_ranked_title_before_description_before_comment(client, acme, web):
    assert _keys(client, acme, "login flow") == ["WEB-1", "WEB-2", "WEB-3"]


def test_words_are_prefixes_and_stemmed(client, acme, web):
    # Typing "logi" already finds login; "logins" finds it by its stem.
    assert _keys(client, acme, "logi")[:1] == ["WEB-1"]
    assert "WEB-1" in _keys(client, acme, "logins")


def test_phrase_in_quotes(client, acme, web):
    project, _ = web
    new_task(client, acme, project, title="Flow of the login")
    assert "WEB-5" in _keys(client, acme, "login flow")
    assert "WEB-5" not in _keys(client, acme, '"login flow"')


def test_exact_key_first_in_any_spelling(client, acme, web):
    for typed in ("WEB-4", "web-4", "web4", "Web 4"):
        results = _search(client, acme, typed)
        assert results[0]["key"] == "WEB-4" and results[0]["match"] == "key", typed


def test_matches_are_marked_and_task_text_is_escaped(client, acme, web):
    project, _ = web
    new_task(
        client,
        acme,
        project,
        title="<script>alert(1)</script> checkout",
        description='<img src=x onerror="alert(2)"> the checkout button',
    )
    hit = _search(client, acme, "checkout")[0]
    assert hit["title_html"] == "&lt;script&gt;alert(1)&lt;/script&gt; <mark>checkout</mark>"
    assert "<img" not in hit["snippet_html"]
    assert "<mark>checkout</mark>" in hit["snippet_html"]
    comment_hit = next(r for r in _search(client, acme, "customers") if r["key"] == "WEB-3")
    assert "<mark>Customers</mark>" in comment_hit["snippet_html"]


def test_hidden_tasks_never_show(client, acme, globex, web):
    _, (title, *_rest) = web
    theirs = create_project(client, globex, "Globex Web", "GLX")
    new_task(client, globex, theirs, title="Login flow at Globex")
    assert all(k.startswith("WEB-") for k in _keys(client, acme, "login"))
    assert _keys(client, globex, "login") == ["GLX-1"]
    assert _keys(client, globex, "WEB-1") == []  # another org's key is no match either
    client.delete(acme.url(f"/tasks/{title['id']}"), headers=acme.headers)
    assert "WEB-1" not in _keys(client, acme, "login")
    assert _keys(client, acme, "WEB-1") == []


def test_kept_current_after_edit_comment_and_delete(client, acme, web):
    _, (_, described, _, other) = web
    client.patch(acme.url(f"/tasks/{other['id']}"), json={"title": "Zebra"}, headers=acme.headers)
    assert _keys(client, acme, "zebra") == ["WEB-4"]
    assert _keys(client, acme, "invoice") == []
    client.patch(
        acme.url(f"/tasks/{other['id']}"), json={"description": "quokka"}, headers=acme.headers
    )
    assert _keys(client, acme, "quokka") == ["WEB-4"]
    comment = _comment(client, acme, described, "a wombat appeared")
    assert _keys(client, acme, "wombat") == ["WEB-2"]
    url = acme.url(f"/tasks/{described['id']}/comments/{comment['id']}")
    client.patch(url, json={"body": "a numbat appeared"}, headers=acme.headers)
    assert (_keys(client, acme, "wombat"), _keys(client, acme, "numbat")) == ([], ["WEB-2"])
    client.delete(url, headers=acme.headers)
    assert _keys(client, acme, "numbat") == []


def test_index_follows_the_writing_transaction(app, client, acme, web):
    """A write rolled back leaves the index as it was; the index and the tasks agree."""
    _, tasks = web
    with app.app_context():
        db.session.execute(
            text("UPDATE tasks SET title = 'Platypus' WHERE id = :id").bindparams(
                bindparam("id", type_=Uuid)
            ),
            {"id": uuid.UUID(tasks[0]["id"])},
        )
        assert db.session.scalar(text("SELECT count(*) FROM task_search WHERE title = 'Platypus'"))
        db.session.rollback()
    assert _keys(client, acme, "platypus") == []
    with app.app_context():
        indexed = db.session.scalar(text("SELECT count(*) FROM task_search"))
        assert indexed == db.session.scalar(text("SELECT count(*) FROM tasks"))


WEIRD = [
    '"',
    '"""',
    "*",
    "login*",
    "NEAR(login flow)",
    "login AND OR NOT",
    "(login",
    "login)",
    "-login",
    "^login",
    "col:login",
    "login'; DROP TABLE tasks; --",
    "a & b | !c <-> d:*",
    "\\",
    "%_%",
    "日本語 テスト",
    "🙂",
]


def test_weird_input_never_fails(client, acme, web):
    """Query syntax of FTS5 and tsquery typed as text is words, never an error."""
    login(client, acme.owner_email)
    for typed in WEIRD:
        assert isinstance(_search(client, acme, typed), list), typed
        page = client.get(f"/o/{acme.slug}/search", query_string={"q": typed})
        assert page.status_code == 200, typed
    assert _keys(client, acme, "(login) flow*^") == ["WEB-1", "WEB-2", "WEB-3"]
    assert _keys(client, acme, '"login') == ["WEB-1", "WEB-2", "WEB-3"]


def test_bad_input_is_a_clear_400(client, acme):
    assert_problem(client.get(acme.url("/search"), headers=acme.headers), 400, "q")
    assert_problem(client.get(acme.url("/search?q=+"), headers=acme.headers), 400, "q")
    long = client.get(acme.url("/search"), query_string={"q": "x" * 201}, headers=acme.headers)
    assert_problem(long, 400, "q")
    for limit in ("0", "51", "ten"):
        resp = client.get(acme.url(f"/search?q=a&limit={limit}"), headers=acme.headers)
        assert_problem(resp, 400, "limit")
    assert len(_search(client, acme, "x" * 200)) == 0
    assert_problem(client.get(acme.url("/search?q=a%00b"), headers=acme.headers), 400, "q")
    login(client, acme.owner_email)
    assert client.get(f"/o/{acme.slug}/search?q=a%00b").status_code in (200, 400)


def test_pql_text_composes_with_other_filters(client, acme, web):
    project, (title, *_rest) = web
    client.patch(
        acme.url(f"/tasks/{title['id']}"), json={"priority": "urgent"}, headers=acme.headers
    )

    def listed(pql):
        resp = client.get(
            acme.url(f"/projects/{project['id']}/tasks"),
            query_string={"pql": pql, "sort": "key", "dir": "asc"},
            headers=acme.headers,
        )
        assert resp.status_code == 200, resp.get_json()
        return [t["key"] for t in resp.get_json()["items"]]

    assert listed('text ~ "login flow"') == ["WEB-1", "WEB-2", "WEB-3"]
    assert listed('text ~ "login flow" AND priority = urgent') == ["WEB-1"]
    assert listed('text !~ "login" OR priority = urgent') == ["WEB-1", "WEB-4"]
    assert listed('text ~ "customers" AND text ~ billing') == ["WEB-3"]
    bad = client.get(
        acme.url(f"/projects/{project['id']}/tasks"),
        query_string={"pql": 'text ~ "***"'},
        headers=acme.headers,
    )
    assert_problem(bad, 422, "pql")


def test_search_page_marks_and_drills_down(client, acme, web):
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/search?q=login+flow")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert '<label class="field-inline filter-search" for="search-q"><span>Search</span>' in html
    assert "<mark>Login</mark> <mark>flow</mark> redesign" in html
    assert html.index("WEB-1") < html.index("WEB-2") < html.index("WEB-3")
    assert "pql=text+~+%22login+flow%22" in html
    partial = client.get(f"/o/{acme.slug}/search?q=billing", headers={"HX-Request": "true"})
    body = partial.get_data(as_text=True)
    assert body.lstrip().startswith('<div id="search-results">') and "WEB-3" in body
    too_long = client.get(f"/o/{acme.slug}/search", query_string={"q": "y" * 201})
    assert too_long.status_code == 400 and "Enter at most 200 characters (this has 201)." in (
        too_long.get_data(as_text=True)
    )


def test_sqlite_marks_words_phrases_and_cuts_long_text_around_the_match():
    from workspace.core.search_index import parse_terms
    from workspace.tracker.search.highlight import mark
    from workspace.tracker.search.service import marked

    terms = parse_terms('logi "rate limiter" 12')
    text = " ".join(["filler"] * 30) + " the login rate limiter broke WEB-12 and WEB-120 " * 2
    html = str(marked(mark(text, terms, snippet=True)))
    assert html.startswith("… filler") and html.endswith(" …")
    assert "<mark>login</mark> <mark>rate</mark> <mark>limiter</mark>" in html
    assert "WEB-<mark>12</mark> and WEB-120" in html  # numbers match whole
    assert mark("no match here", terms, snippet=True) == ""
    assert str(marked(mark("<b>Login</b>", terms))) == "&lt;b&gt;<mark>Login</mark>&lt;/b&gt;"
