"""Saved views: who sees which, who changes which, and what is saved
(docs/saved_views.md). Flushes, never commits: the request's transaction does.

    create(access, project, body)      -> SavedView   (the caller owns it)
    list_for(access, project)          -> [SavedView] (theirs and the shared ones)
    get_visible(access, project, id)   -> SavedView   (404 when not theirs to see)
    update(access, view, changes) / rename(...) / delete(access, view)

Every function takes the caller's :class:`Access`; the routes have already checked
the action (``saved_view.read`` or ``saved_view.save``), this module checks the view.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, or_, select

from workspace.core.models import Project, ProjectRole
from workspace.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.security.permissions import Access, can, project_role
from workspace.tracker import listing
from workspace.tracker.saved_views.models import SavedView

#: One person's views in one project, and all views of one project: enough for any
#: tab strip, and a bound on what a page lists.
MAX_PER_OWNER = 25
MAX_PER_PROJECT = 100

#: The list's columns a view chooses among, in the table's order, with their labels.
COLUMNS = {
    "title": "Title",
    "state": "State",
    "priority": "Priority",
    "kind": "Kind",
    "assignee": "Assignee",
    "due": "Due",
    "created": "Created",
    "updated": "Updated",
}

_FIELDS = ("name", "kind", "pql", "sort", "direction", "group_by", "columns", "shared")


def list_for(access: Access, project: Project) -> list[SavedView]:
    """The views ``access`` sees in ``project``: their own (private or shared) and the
    others' shared ones, by name."""
    return list(
        db.session.scalars(
            select(SavedView)
            .where(
                SavedView.project_id == project.id,
                or_(SavedView.owner_id == access.account.id, SavedView.shared.is_(True)),
            )
            .order_by(func.lower(SavedView.name), SavedView.created_at)
        )
    )


def get_visible(access: Access, project: Project, view_id: uuid.UUID) -> SavedView:
    """A view the caller may see; someone else's private view is a 404, as is one of
    another project, so its existence never leaks."""
    view = db.session.get(SavedView, view_id)
    if (
        view is None
        or view.project_id != project.id
        or view.org_id != access.org.id
        or (view.owner_id != access.account.id and not view.shared)
    ):
        raise NotFoundError("No such saved view.")
    return view


@dataclass(frozen=True)
class EditRights:
    """What the caller may do to a project's views: read once per project, so a list
    of views does not ask the database again for each one."""

    may_save: bool
    is_admin: bool


def edit_rights(access: Access, project_id: uuid.UUID) -> EditRights:
    may_save = can(access, "saved_view.save", project_id)
    return EditRights(may_save, may_save and project_role(access, project_id) == ProjectRole.ADMIN)


def can_edit(access: Access, view: SavedView, rights: EditRights | None = None) -> bool:
    """The owner (while still allowed to save views here), or a project or org admin
    for a shared view (to tidy the project's tabs)."""
    rights = rights or edit_rights(access, view.project_id)
    if not rights.may_save:
        return False
    return view.owner_id == access.account.id or (view.shared and rights.is_admin)


def _require_edit(access: Access, view: SavedView) -> None:
    if not can_edit(access, view):
        raise ForbiddenError("Only the view's owner or a project admin can change a shared view.")


def _check(access: Access, values: dict[str, Any]) -> None:
    """What a view stores must run: a name, and a PQL filter the compiler takes."""
    if "name" in values and not values["name"]:
        raise ServiceError("Give the view a name.", field="name")
    if values.get("pql"):
        try:
            listing.pql_condition(access, values["pql"])
        except ServiceError as exc:
            raise ServiceError(f"The filter cannot be saved: {exc.message}", field="pql") from exc


def _refuse_taken_name(project_id: uuid.UUID, owner_id: uuid.UUID, name: str, own_id=None) -> None:
    """409 on ``name`` when the owner already has a view so named in the project; asked
    before the write so the transaction stays usable (the unique constraint backs it)."""
    taken = db.session.scalar(
        select(SavedView.id).where(
            SavedView.project_id == project_id,
            SavedView.owner_id == owner_id,
            SavedView.name == name,
            SavedView.id != own_id if own_id else SavedView.id.is_not(None),
        )
    )
    if taken is not None:
        raise ConflictError(
            f"You already have a view named “{name}” in this project.", field="name"
        )


def create(access: Access, project: Project, values: dict[str, Any]) -> SavedView:
    """Save a new view owned by the caller; refused past the caps, with a bad filter,
    or with a name the caller already uses in this project."""
    values = _columns(values)
    _check(access, values)
    mine, everyone = db.session.execute(
        select(
            func.count().filter(SavedView.owner_id == access.account.id),
            func.count(),
        ).where(SavedView.project_id == project.id)
    ).one()
    if mine >= MAX_PER_OWNER:
        raise ConflictError(
            f"You have {MAX_PER_OWNER} views in this project, the most one person may "
            "save; delete one first.",
            field="name",
        )
    if everyone >= MAX_PER_PROJECT:
        raise ConflictError(
            f"This project has {MAX_PER_PROJECT} saved views, the most it may hold; "
            "delete one first.",
            field="name",
        )
    _refuse_taken_name(project.id, access.account.id, values["name"])
    view = SavedView(
        org_id=access.org.id,
        project_id=project.id,
        owner_id=access.account.id,
        **{k: v for k, v in values.items() if k in _FIELDS},
    )
    db.session.add(view)
    db.session.flush()
    return view


def update(access: Access, view: SavedView, changes: dict[str, Any]) -> SavedView:
    """Change what ``changes`` names (only the owner or, for a shared view, a project
    admin); unsharing someone else's view would hide it from its owner's colleagues
    only, so an admin may do that too."""
    _require_edit(access, view)
    changes = _columns({k: v for k, v in changes.items() if k in _FIELDS})
    _check(access, changes)
    if "name" in changes:
        _refuse_taken_name(view.project_id, view.owner_id, changes["name"], view.id)
    for key, value in changes.items():
        setattr(view, key, value)
    db.session.flush()
    return view


def rename(access: Access, view: SavedView, name: str) -> SavedView:
    return update(access, view, {"name": name})


def delete(access: Access, view: SavedView) -> None:
    """Delete a view (only the owner or, for a shared view, a project admin)."""
    _require_edit(access, view)
    db.session.delete(view)
    db.session.flush()


def hidden_columns(view: SavedView | None) -> list[str]:
    """The list columns ``view`` hides (none without a view or a column choice)."""
    if view is None or not view.columns:
        return []
    return [c for c in COLUMNS if c not in view.columns]


def _columns(values: dict[str, Any]) -> dict[str, Any]:
    """Every column chosen is the same as no choice: stored as null, so columns the
    list gains later show in the view too."""
    chosen = values.get("columns")
    if chosen is not None and set(chosen) >= set(COLUMNS):
        values = values | {"columns": None}
    return values


#: What a view stores of the list page's query: the view's field -> the query's.
QUERY_FIELDS = {
    "kind": "view",
    "pql": "pql",
    "sort": "sort",
    "direction": "dir",
    "group_by": "group",
}


def page_query(view: SavedView, base: listing.ListPageQuery) -> listing.ListPageQuery:
    """The list page's query a saved view opens: its kind, filter, sort and grouping,
    keeping the search box and category tab of ``base`` (they are not part of a view);
    ``saved`` names the view, so the page's links keep it."""
    stored = {arg: getattr(view, name) for name, arg in QUERY_FIELDS.items()}
    return base.model_copy(update=stored | {"saved": view.id, "offset": 0})


def unsaved_changes(view: SavedView, query: listing.ListPageQuery) -> dict[str, Any]:
    """What the page shows differently from ``view`` as saved, by the view's field
    names (``{}`` when nothing): what *Save changes* would store."""
    shown = {name: getattr(query, arg) for name, arg in QUERY_FIELDS.items()}
    return {name: value for name, value in shown.items() if value != getattr(view, name)}
