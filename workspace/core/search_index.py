"""The task search index (docs/search.md): what a typed query means, and the SQL that
matches it, on PostgreSQL (``tsvector`` + GIN, ``pg_trgm``) and SQLite (FTS5).

    terms = parse_terms('"login flow" invoice')   # a phrase and a prefix word
    select(Task).where(matching_tasks(terms))      # what PQL's ``text ~`` compiles to

The index itself (``task_search``, and on SQLite ``task_search_fts``) is written by
the triggers of migration 0025 in the same transaction as the task or comment they
follow; nothing here writes it except :func:`rebuild`, for a bulk load that ran with
triggers off (``flask bench-data``).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Integer, String, Text, Uuid, column, literal_column, select
from sqlalchemy import table as sql_table
from sqlalchemy import text as sql_text

from workspace.core.models import Task
from workspace.extensions import db

#: PostgreSQL's text search configuration: stemming and stop words of English (the
#: migration builds the documents with the same one; changing it means a reindex).
CONFIG = "english"
#: The tables the migration made that no model describes: the models' comparison
#: (tests/test_migrations.py) leaves them out. FTS5 keeps its index in shadow tables.
TABLES = frozenset(
    {
        "task_search",
        "task_search_fts",
        "task_search_fts_config",
        "task_search_fts_data",
        "task_search_fts_docsize",
        "task_search_fts_idx",
        "task_search_fts_content",
    }
)
#: Longest query, in characters, and most words read from one.
MAX_QUERY = 200
MAX_TERMS = 12

search_rows = sql_table(
    "task_search",
    column("id", Integer),
    column("task_id", Uuid),
    column("org_id", Uuid),
    column("key", String),
    column("title", Text),
    column("body", Text),
    column("comments", Text),
    column("document", Text),
)

_SEGMENT = re.compile(r'"([^"]*)"?|([^\s"]+)')
_WORD = re.compile(r"\w+", re.UNICODE)
#: A task key as typed, forgiving the case and the hyphen: ``web-12``, ``WEB12``, ``web 12``.
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]{0,11}?)[-\s]*([0-9]{1,9})\s*$")


@dataclass(frozen=True)
class Term:
    """One word (matched as a prefix, so results follow typing) or one quoted phrase."""

    words: tuple[str, ...]

    @property
    def phrase(self) -> bool:
        return len(self.words) > 1

    @property
    def prefix(self) -> bool:
        """Words match as prefixes, numbers exactly: "12" standing for every number
        that starts with 12 (a key's, WEB-12) would find thousands and help nobody."""
        return not self.phrase and not self.words[0].isdigit()


def parse_terms(q: str) -> list[Term]:
    """The words and quoted phrases of ``q``; every other character (``*``, ``(``,
    ``NEAR``'s syntax, quotes left open) is a separator, never query syntax, so no
    input is an error of the database's query language."""
    terms: list[Term] = []
    for phrase, bare in _SEGMENT.findall(q.replace("\x00", " ")):
        words = tuple(w.lower() for w in _WORD.findall(phrase or bare))
        if not words:
            continue
        if phrase:
            terms.append(Term(words[:MAX_TERMS]))
        else:
            terms.extend(Term((w,)) for w in words)
    return terms[:MAX_TERMS]


def key_parts(q: str) -> tuple[str, int] | None:
    """``(identifier, number)`` when ``q`` reads as a task key, else None."""
    found = _KEY.match(q)
    if not found:
        return None
    return found.group(1).upper(), int(found.group(2))


def fts5_query(terms: list[Term]) -> str:
    """An FTS5 MATCH string: every word double-quoted (a string, never an operator:
    ``NEAR``, ``AND``, ``*`` typed by someone are words), single words as prefixes."""
    parts = []
    for term in terms:
        joined = " ".join(term.words)
        parts.append(f'"{joined}"' if term.phrase or not term.prefix else f'"{joined}"*')
    return " AND ".join(parts)


def tsquery(terms: list[Term]) -> str:
    """A ``to_tsquery`` string: quoted lexemes (words only, so nothing in them is an
    operator), ``<->`` inside a phrase, ``:*`` prefixes for single words, all ANDed."""
    parts = []
    for term in terms:
        if term.phrase:
            parts.append("(" + " <-> ".join(f"'{w}'" for w in term.words) + ")")
        else:
            parts.append(f"'{term.words[0]}'" + (":*" if term.prefix else ""))
    return " & ".join(parts)


def pg_query(terms: list[Term]) -> ColumnElement:
    """The terms as a PostgreSQL ``tsquery`` (the configuration is a constant, so the
    planner sees ``to_tsquery('english'::regconfig, $1)`` and uses the GIN index)."""
    from sqlalchemy import func

    return func.to_tsquery(literal_column(f"'{CONFIG}'::regconfig"), tsquery(terms))


def matching_ids(terms: list[Term]):
    """A SELECT of the ids of every task (any org, any state) whose key, title,
    description or comments hold all ``terms``; callers add their own visibility."""
    if db.session.get_bind().dialect.name == "postgresql":
        document = literal_column("task_search.document")
        return select(search_rows.c.task_id).where(document.op("@@")(pg_query(terms)))
    fts = sql_table("task_search_fts", column("rowid", Integer))
    match = literal_column("task_search_fts").op("MATCH")(fts5_query(terms))
    matched = select(fts.c.rowid).where(match)
    return select(search_rows.c.task_id).where(search_rows.c.id.in_(matched))


def matching_tasks(terms: list[Term]) -> ColumnElement[bool]:
    """A condition over ``Task``: it matches all ``terms`` (PQL's ``text ~``)."""
    return Task.id.in_(matching_ids(terms))


def rebuild(org_id: uuid.UUID | None = None) -> int:
    """Write the index again from the tasks and comments (of one org, or all), for a
    load that bypassed the triggers; returns how many tasks it holds now."""
    dialect = db.session.get_bind().dialect.name
    where = "" if org_id is None else " WHERE t.org_id = :org"
    params = {} if org_id is None else {"org": org_id.hex if dialect == "sqlite" else org_id}
    if dialect == "postgresql":
        db.session.execute(
            sql_text(f"DELETE FROM task_search{' WHERE org_id = :org' if where else ''}"),
            params,
        )
        db.session.execute(
            sql_text(
                "INSERT INTO task_search (task_id, org_id, key, title, comments, document) "
                "SELECT t.id, t.org_id, p.identifier || '-' || t.sequence, t.title, c.text, "
                "task_search_document(p.identifier || '-' || t.sequence, t.title, "
                "t.description, c.text) FROM tasks t JOIN projects p ON p.id = t.project_id "
                "CROSS JOIN LATERAL (SELECT coalesce((SELECT string_agg(c.body, E'\\n' "
                "ORDER BY c.created_at) FROM comments c WHERE c.task_id = t.id AND "
                f"c.deleted_at IS NULL), '') AS text) c{where}"
            ),
            params,
        )
    else:
        db.session.execute(
            sql_text(f"DELETE FROM task_search{' WHERE org_id = :org' if where else ''}"),
            params,
        )
        db.session.execute(
            sql_text(
                "INSERT INTO task_search (task_id, org_id, key, title, body, comments) "
                "SELECT t.id, t.org_id, p.identifier || '-' || t.sequence, t.title, "
                "coalesce(t.description, ''), coalesce((SELECT group_concat(body, char(10)) "
                "FROM (SELECT c.body FROM comments c WHERE c.task_id = t.id AND "
                "c.deleted_at IS NULL ORDER BY c.created_at)), '') "
                f"FROM tasks t JOIN projects p ON p.id = t.project_id{where}"
            ),
            params,
        )
    count = sql_text(f"SELECT count(*) FROM task_search{' WHERE org_id = :org' if where else ''}")
    return int(db.session.scalar(count, params) or 0)
