"""Searching tasks, two ways (docs/search.md):

    hits = search_tasks(access, q="login flow", limit=20)   # -> list[SearchHit]

ranked full-text search over the keys, titles, descriptions and comments of the tasks
``access`` may read (what the search page, its JSON API and the command menu call);
and :func:`list_org_tasks`, the org-wide task list under a PQL filter (where an
analytics figure drills down to). ``SearchHit.task`` is the ``Task``;
``title_html`` and ``snippet_html`` are ``Markup`` with the matches in ``<mark>``,
every character of the task's own text escaped.

Ranking: an exact key (``WEB-12``, ``web12``) first; then the full-text matches by
relevance (key and title weigh most, then description, then comments), newest first
on ties; then, on PostgreSQL only and when nothing else matched, titles that are
merely similar (``pg_trgm``).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from markupsafe import Markup, escape
from sqlalchemy import select
from sqlalchemy import text as sql_text

from workspace.core import accounts, task_lists
from workspace.core.models import Project, Task
from workspace.core.search_index import CONFIG, MAX_QUERY, fts5_query, key_parts, parse_terms
from workspace.core.search_index import tsquery as to_tsquery_text
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.permissions import Access
from workspace.tracker.listing import PAGE_SIZE, ListPageQuery, pql_condition
from workspace.tracker.search import highlight

#: Most results one search answers.
MAX_LIMIT = 50
#: How many of the newest matches are ranked: a word in every tenth task of a
#: million would otherwise rank 100,000 rows per keystroke (docs/search.md#limits).
CANDIDATES = 500

_START, _STOP, _LT = "\x02", "\x03", "\x01"


def _untagged(sql: str) -> str:
    """``sql``'s text with ``<`` as \\x01 for ``ts_headline``, which would drop what
    its parser reads as an HTML tag (``<script>`` in a title): :func:`marked` puts it
    back, escaped."""
    return f"replace({sql}, '<', chr(1))"


@dataclass(frozen=True)
class SearchHit:
    task: Task
    title_html: Markup
    snippet_html: Markup
    #: ``key``, ``text`` or ``similar``: why it was found.
    match: str

    @property
    def key(self) -> str:
        return self.task.key


def marked(text: str | None) -> Markup:
    """``text`` escaped, with the database's match markers made ``<mark>`` elements;
    stray markers (a task's own text may hold them) never leave a tag unbalanced."""
    out: list[str] = []
    inside = False
    for part in re.split(f"([{_START}{_STOP}])", text or ""):
        if part == _START:
            if not inside:
                out.append("<mark>")
                inside = True
        elif part == _STOP:
            if inside:
                out.append("</mark>")
                inside = False
        else:
            out.append(str(escape(part.replace(_LT, "<"))))
    if inside:
        out.append("</mark>")
    return Markup("".join(out))


def _check(q: str, limit: int) -> None:
    if len(q) > MAX_QUERY:
        raise ServiceError(f"Search with at most {MAX_QUERY} characters.", field="q")
    if not 1 <= limit <= MAX_LIMIT:
        raise ServiceError(f"Ask for 1 to {MAX_LIMIT} results.", field="limit")


def _visible(org_id: uuid.UUID) -> list:
    """What a member reads: every live task of the org's live projects (every member
    reads every project of its org, docs/security.md#agents)."""
    return [
        Task.org_id == org_id,
        Task.deleted_at.is_(None),
        Task.archived_at.is_(None),
        Project.archived_at.is_(None),
    ]


def _tasks(ids: list[uuid.UUID]) -> dict[uuid.UUID, Task]:
    if not ids:
        return {}
    rows = db.session.scalars(select(Task).where(Task.id.in_(ids)))
    return {task.id: task for task in rows}


def _by_key(org_id: uuid.UUID, q: str) -> Task | None:
    parts = key_parts(q)
    if parts is None:
        return None
    identifier, number = parts
    return db.session.scalar(
        select(Task)
        .join(Project, Project.id == Task.project_id)
        .where(*_visible(org_id), Project.identifier == identifier, Task.sequence == number)
    )


_VISIBLE_SQL = (
    "JOIN tasks t ON t.id = s.task_id JOIN projects p ON p.id = t.project_id "
    "WHERE s.org_id = :org AND t.deleted_at IS NULL AND t.archived_at IS NULL "
    "AND p.archived_at IS NULL"
)


def _sqlite_hits(org_id: uuid.UUID, q: str, limit: int) -> list[tuple[uuid.UUID, str, str]]:
    """(task id, title with markers, snippet with markers), best first: the org's
    newest :data:`CANDIDATES` matches (FTS5 reads its rowids backwards, so the cap is
    cheap) ranked by BM25, the key and title weighing most; only the best 200 are
    joined to their tasks for what a member reads."""
    terms = parse_terms(q)
    ranked = db.session.execute(
        sql_text(
            "WITH m AS MATERIALIZED (SELECT f.rowid AS rid, "
            "bm25(task_search_fts, 10.0, 6.0, 2.0, 1.0) AS score FROM task_search_fts f "
            "JOIN task_search s ON s.id = f.rowid WHERE task_search_fts MATCH :q "
            "AND s.org_id = :org ORDER BY f.rowid DESC LIMIT :cap) "
            "SELECT s.task_id, s.title, s.body, s.comments FROM (SELECT * FROM m "
            f"ORDER BY score, rid DESC LIMIT 200) b JOIN task_search s ON s.id = b.rid "
            f"{_VISIBLE_SQL} ORDER BY b.score, b.rid DESC LIMIT :limit"
        ),
        {"q": fts5_query(terms), "org": org_id.hex, "cap": CANDIDATES, "limit": limit},
    ).all()
    hits = []
    for task_id, title, body, comments in ranked:
        snippet = highlight.mark(body, terms, snippet=True)
        snippet = snippet or highlight.mark(comments, terms, snippet=True)
        hits.append((uuid.UUID(task_id), highlight.mark(title, terms), snippet))
    return hits


#: The candidates ``m`` (task_id, score; found in the index alone, the org leading
#: its GIN key) best first: the best 200 by score are the only ones joined to their
#: tasks, for what a member reads and the newest-first tiebreak.
_PG_RANKED = (
    "SELECT b.task_id FROM (SELECT * FROM m ORDER BY score DESC LIMIT 200) b "
    "JOIN tasks t ON t.id = b.task_id JOIN projects p ON p.id = t.project_id "
    "WHERE t.deleted_at IS NULL AND t.archived_at IS NULL AND p.archived_at IS NULL "
    "ORDER BY b.score DESC, t.created_at DESC LIMIT :limit"
)
_BODY = "t.description || E'\\n' || s.comments"
_PG_QUERY = f"to_tsquery('{CONFIG}'::regconfig, :q)"
_HEADLINE = (
    f"StartSel={_START}, StopSel={_STOP}, MaxWords=24, MinWords=8, MaxFragments=2, "
    'FragmentDelimiter=" … "'
)


def _pg_hits(org_id: uuid.UUID, q: str, limit: int) -> list[tuple[uuid.UUID, str, str]]:
    """As :func:`_sqlite_hits` on PostgreSQL: ``ts_rank_cd`` over the weighted
    document (key and title A, description B, comments C) of at most
    :data:`CANDIDATES` matches, then, when few match, titles similar by trigrams."""
    query = to_tsquery_text(parse_terms(q))
    ranked = db.session.execute(
        sql_text(
            "WITH m AS MATERIALIZED (SELECT s.task_id, "
            f"ts_rank_cd(s.document, {_PG_QUERY}) AS score FROM task_search s "
            f"WHERE s.org_id = :org AND s.document @@ {_PG_QUERY} LIMIT :cap) "
            f"{_PG_RANKED}"
        ),
        {"q": query, "org": org_id, "cap": CANDIDATES, "limit": limit},
    ).scalars()
    ids = list(ranked)
    hits: list[tuple[uuid.UUID, str, str]] = []
    if ids:
        rows = db.session.execute(
            sql_text(
                f"SELECT t.id, ts_headline('{CONFIG}', {_untagged('t.title')}, {_PG_QUERY}, "
                f":title_opts), ts_headline('{CONFIG}', {_untagged(_BODY)}, {_PG_QUERY}, :opts) "
                "FROM tasks t JOIN task_search s ON s.task_id = t.id "
                "WHERE t.id = ANY(:ids)"
            ),
            {
                "q": query,
                "ids": ids,
                "opts": _HEADLINE,
                "title_opts": f"StartSel={_START}, StopSel={_STOP}, HighlightAll=true",
            },
        ).all()
        found = {tid: (title, snippet if _START in snippet else "") for tid, title, snippet in rows}
        hits = [(tid, *found[tid]) for tid in ids if tid in found]
    if not hits:
        hits += _similar(org_id, q, limit - len(hits), {tid for tid, _, _ in hits})
    return hits


def _similar(org_id: uuid.UUID, q: str, limit: int, seen: set) -> list[tuple[uuid.UUID, str, str]]:
    """Titles like ``q`` by trigram similarity (``pg_trgm``'s ``%``, GIN-indexed):
    the typo ("lgoin flow") full-text search cannot forgive."""
    rows = db.session.execute(
        sql_text(
            "WITH m AS MATERIALIZED (SELECT s.task_id, similarity(s.title, :raw) AS score "
            "FROM task_search s WHERE s.org_id = :org AND s.title % :raw LIMIT :cap) "
            f"SELECT r.task_id, t.title FROM ({_PG_RANKED}) r "
            "JOIN tasks t ON t.id = r.task_id"
        ),
        {"raw": q, "org": org_id, "cap": CANDIDATES, "limit": limit + len(seen)},
    ).all()
    return [(tid, title, "") for tid, title in rows if tid not in seen][:limit]


def search_tasks(access: Access, q: str, limit: int = 20) -> list[SearchHit]:
    """The tasks ``access`` may read that match ``q``, best first, at most ``limit``
    (1 to :data:`MAX_LIMIT`); a blank ``q`` finds nothing. Raises ``ServiceError``
    (400 on ``q``/``limit``) for a query over :data:`MAX_QUERY` characters."""
    _check(q, limit)
    q = q.replace("\x00", " ").strip()  # PostgreSQL text cannot hold NUL
    org_id = access.org.id
    hits: list[SearchHit] = []
    exact = _by_key(org_id, q) if q else None
    if exact is not None:
        hits.append(SearchHit(exact, Markup(escape(exact.title)), Markup(""), "key"))
    if not parse_terms(q) or len(hits) >= limit:
        return hits
    want = limit - len(hits)
    postgres = db.session.get_bind().dialect.name == "postgresql"
    found = (_pg_hits if postgres else _sqlite_hits)(org_id, q, want + len(hits))
    tasks = _tasks([tid for tid, _, _ in found])
    for tid, title, snippet in found:
        task = tasks.get(tid)
        if task is None or (exact is not None and task.id == exact.id):
            continue
        kind = "text" if _START in (title or "") + snippet else "similar"
        hits.append(SearchHit(task, marked(title or task.title), marked(snippet), kind))
    return hits[:limit]


@dataclass
class SearchResult:
    query: ListPageQuery
    rows: list[Task] = field(default_factory=list)
    total: int = 0
    #: Assignee id -> account, for the rows' names (former members included).
    people: dict = field(default_factory=dict)

    @property
    def next_offset(self) -> int:
        return self.query.offset + PAGE_SIZE


def list_org_tasks(access: Access, query: ListPageQuery) -> SearchResult:
    """One page of the org's tasks matching ``query`` and how many match; archived
    and deleted tasks never show (as on a project's list). Raises ``PQLError`` (400
    on ``pql``) when the filter cannot run."""
    flt = task_lists.TaskFilter(
        state_category=query.category,
        search=query.q or None,
        condition=pql_condition(access, query.pql),
    )
    rows, total = task_lists.list_tasks(
        access.org.id,
        flt,
        limit=PAGE_SIZE,
        offset=query.offset,
        sort=query.sort,
        descending=query.dir == "desc",
    )
    members = accounts.list_members(access.org.id, include_inactive=True)
    people: dict = {m.account_id: m.account for m in members}
    return SearchResult(query=query, rows=rows, total=total, people=people)


__all__ = ["SearchHit", "SearchResult", "list_org_tasks", "marked", "search_tasks"]
