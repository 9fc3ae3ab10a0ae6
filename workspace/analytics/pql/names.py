"""The names a PQL box may offer as values (docs/pql.md#autocomplete), read for one
caller: states, cycles and modules of the org's live projects (or of one project),
the org's live projects, its active members. Archived projects and other orgs'
names are never read, so a suggestion never tells anyone they exist."""

from __future__ import annotations

import uuid

from sqlalchemy import ColumnElement, Select, func, or_, select

from workspace.analytics.pql.suggest import LIMIT
from workspace.core.models import Account, Cycle, Module, OrgMember, Project, State
from workspace.extensions import db


def _like(column, prefix: str) -> ColumnElement[bool]:
    """``column`` contains ``prefix`` ignoring case; ``%`` and ``_`` are plain."""
    escaped = prefix.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return func.lower(column).like(f"%{escaped}%", escape="\\")


class Names:
    """``lookup(field, prefix)`` -> ``[(name, detail)]`` for :func:`suggest.suggest`."""

    def __init__(self, org_id: uuid.UUID, project_id: uuid.UUID | None = None) -> None:
        self.org_id = org_id
        self.project_id = project_id

    def _projects(self) -> Select:
        query = select(Project.id).where(
            Project.org_id == self.org_id, Project.archived_at.is_(None)
        )
        if self.project_id is not None:
            query = query.where(Project.id == self.project_id)
        return query

    def __call__(self, field: str, prefix: str) -> list[tuple[str, str]]:
        if field == "assignee":
            query = (
                select(Account.name, Account.email)
                .join(OrgMember, OrgMember.account_id == Account.id)
                .where(OrgMember.org_id == self.org_id, OrgMember.active.is_(True))
                .order_by(func.lower(Account.name), Account.email)
                .limit(LIMIT * 2)
            )
            if prefix:
                query = query.where(or_(_like(Account.name, prefix), _like(Account.email, prefix)))
            out = []
            for name, email in db.session.execute(query):
                # The email is what PQL matches exactly; the name is shown beside it.
                out.append((email or name, name or "") if email else (name, ""))
            return out
        if field == "project":
            query = (
                select(Project.identifier, Project.name)
                .where(Project.org_id == self.org_id, Project.archived_at.is_(None))
                .order_by(Project.identifier)
                .limit(LIMIT * 2)
            )
            if prefix:
                query = query.where(
                    or_(_like(Project.identifier, prefix), _like(Project.name, prefix))
                )
            return [(identifier, name) for identifier, name in db.session.execute(query)]
        model = {"status": State, "cycle": Cycle, "module": Module}.get(field)
        if model is None:
            return []
        query = (
            select(model.name)
            .where(model.project_id.in_(self._projects()))
            .group_by(model.name)
            .order_by(func.lower(model.name))
            .limit(LIMIT * 2)
        )
        if prefix:
            query = query.where(_like(model.name, prefix))
        return [(name, "") for name in db.session.scalars(query)]
