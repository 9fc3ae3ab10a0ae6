"""SQL functions that must answer the same on SQLite and PostgreSQL.

``lower()`` folds only ASCII letters on SQLite, while PostgreSQL (UTF-8 locale) and
Python fold every script: "Équipe" would match "équipe" on one backend and not on
the other. :class:`unicode_lower` renders as PostgreSQL's ``lower()`` and, on SQLite,
as ``ws_lower()``, which :func:`register_sqlite` defines as Python's ``str.lower``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, String, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import GenericFunction
from sqlalchemy.types import Uuid


class unicode_lower(GenericFunction):
    type = String()
    inherit_cache = True
    name = "lower"


@compiles(unicode_lower, "sqlite")
def _sqlite_lower(element: unicode_lower, compiler: Any, **kw: Any) -> str:
    return f"ws_lower({compiler.process(element.clauses, **kw)})"


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def register_sqlite(dbapi_connection: Any) -> None:
    """Define ``ws_lower`` on a new SQLite connection."""
    dbapi_connection.create_function("ws_lower", 1, _lower, deterministic=True)


def equals_ignoring_case(column: Any, value: str) -> ColumnElement[bool]:
    """``column`` equals ``value`` without regard to case, on either backend."""
    return unicode_lower(column) == unicode_lower(literal(value))


class random_uuid(GenericFunction):
    """A fresh UUID made by the database, for INSERT ... SELECT rows."""

    type = Uuid()
    inherit_cache = True
    name = "gen_random_uuid"


@compiles(random_uuid, "sqlite")
def _sqlite_random_uuid(element: random_uuid, compiler: Any, **kw: Any) -> str:
    # SQLite keeps a Uuid as 32 hex digits; these form a version-4 UUID.
    return (
        "lower(hex(randomblob(6)) || '4' || substr(hex(randomblob(2)), 2) || "
        "substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || "
        "hex(randomblob(6)))"
    )
