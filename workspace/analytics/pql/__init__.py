"""PQL, the task filter language (docs/pql.md): parse, check, compile to SQL.

    condition = compile_pql('status = "In Progress" AND assignee = currentUser()',
                            org_id, account_id)
    select(Task).where(condition)

Dashboards and the custom chart share :func:`compile_pql`. The app factory registers
the PQL box's suggest API (``api.py``) through :func:`init_app`.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from flask import Flask
from sqlalchemy import ColumnElement

from workspace.analytics.pql.compiler import Compiler
from workspace.analytics.pql.parser import PQLError, parse
from workspace.analytics.scope import Scope, make_scope
from workspace.core.models import Org
from workspace.errors import NotFoundError
from workspace.extensions import db


def compile_pql(
    text: str,
    org_id: uuid.UUID,
    current_account_id: uuid.UUID | None,
    *,
    now: datetime | None = None,
    scope: Scope | None = None,
) -> ColumnElement[bool]:
    """A SQLAlchemy condition over ``Task`` for ``text``; raises :class:`PQLError`
    (a 400 naming the position) on a syntax or name error."""
    if scope is None:
        org = db.session.get(Org, org_id)
        if org is None:
            raise NotFoundError("No such organization.")
        scope = make_scope(org, now=now)
    return Compiler(scope, current_account_id).compile(parse(text))


def init_app(app: Flask) -> None:
    """Register the PQL box's suggest API (imported here: it builds on the whole package)."""
    from workspace.analytics.pql import api

    app.register_blueprint(api.bp)


__all__ = ["PQLError", "compile_pql", "init_app", "parse"]
