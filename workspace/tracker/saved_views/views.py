"""Saved views on the project page (docs/saved_views.md): save the list or board as
it is, open one from its tab (``?view=<id>``), save changes to it or go back to it as
saved, rename it, delete it (the form asks first). A refused form shows the project
page again with the message beside the form and the error's 4xx status."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from pydantic import Field

from workspace.auth.guards import page
from workspace.core.models import Project
from workspace.errors import ServiceError
from workspace.inputs import InputModel, QueryModel, field_errors, needed, parse_form, parse_query
from workspace.security.permissions import Access, can
from workspace.tracker import listing
from workspace.tracker import views as tracker_views
from workspace.tracker.saved_views import service
from workspace.tracker.saved_views.schemas import (
    NAME_MAX,
    SavedViewCreate,
    SavedViewPatch,
    ViewName,
)

bp = Blueprint("saved_views", __name__)

BASE = "/o/<org>/projects/<uuid:project_id>/views"


class ViewArg(QueryModel):
    """The project page's ``view``: a saved view's id, or ``list``/``board``."""

    view: str = ""


def project_page_hook(
    access: Access, project: Project, query: listing.ListPageQuery
) -> tuple[listing.ListPageQuery, dict[str, Any]]:
    """The project page with ``?view=<id>``: the saved view's query (a 404 when the
    caller may not see it), its tab current. With ``?saved=<id>`` (the page's links
    and forms carry it once a view is open): the same view, current, showing what the
    rest of the URL says, and what differs from the view as saved. On every project
    page, the tabs and the save form (tracker/views.py PROJECT_PAGE_HOOKS)."""
    active = None
    try:
        view_id = uuid.UUID(parse_query(ViewArg).view)
    except ValueError:
        view_id = None  # ``list``, ``board`` or nothing: no saved view
    if view_id is not None:
        active = service.get_visible(access, project, view_id)
        query = service.page_query(active, query)
    elif query.saved is not None:
        active = service.get_visible(access, project, query.saved)
    return query, {
        "saved_views": service.list_for(access, project),
        "active_view": active,
        "view_changes": service.unsaved_changes(active, query) if active else {},
        "can_save_view": can(access, "saved_view.save", project.id),
        "can_edit_view": active is not None and service.can_edit(access, active),
        "hidden_columns": service.hidden_columns(active),
        "column_choices": service.COLUMNS,
    }


class RenameForm(InputModel):
    name: ViewName = needed(max_length=NAME_MAX)


class SavedList(InputModel):
    """The save and update forms' hidden fields, as text: the list being saved, shown
    again when the form is refused (the list's own query reads them leniently)."""

    pql: str = Field("", max_length=4000)
    sort: str = Field("", max_length=40)
    direction: str = Field("", max_length=40)
    group_by: str = Field("", max_length=40)
    kind: str = Field("", max_length=40)


#: Where a refused form's message shows, by the form's endpoint (the save form's else).
_ERROR_KEYS = {"rename": "saved_view_rename", "update": "saved_view_update"}


def _refused(error: ServiceError, project: Project, access: Access):
    # The save and rename forms' messages show beside them, not beside the filter; the
    # list is the one being saved (the form's hidden fields), not the POST's bare URL,
    # so a retry after a refused name saves the filter, sort and grouping it showed.
    # Keyed by the form that was refused: a refused rename came back in the open save
    # form, where the next Enter made a new view. The rename's URL carries ?view= so
    # the page is the view's (project_page_hook), with the rename box open.
    # A refused update is the view as the page showed it (``saved``), beside its button.
    form_name = (request.endpoint or "").rsplit(".", 1)[-1]
    key = _ERROR_KEYS.get(form_name, "saved_view")
    errors = {key: " ".join(field_errors(error).values())}
    try:
        saved = parse_form(SavedList).model_dump()
    except ServiceError:  # a hidden field no page sends: the bare list, as before
        saved = {}
    args = {service.QUERY_FIELDS[k]: v for k, v in saved.items() if v}
    if form_name == "update":
        args["saved"] = (request.view_args or {}).get("view_id")
    query, _ = listing.parse_list_query(args)
    return tracker_views._project_page(access, project, query, errors=errors, status=error.status)


def _to_view(org: str, project: Project, view_id: uuid.UUID | None = None):
    args = {"view": str(view_id)} if view_id else {}
    return redirect(url_for("core_pages.project", org=org, project_id=project.id, **args))


@bp.post(BASE)
@page(action="saved_view.save", form=SavedViewCreate, invalid=_refused, checkboxes=("shared",))
def create(org: str, project: Project, form: SavedViewCreate, access: Access):
    """Save the filter, sort and layout the page shows (its hidden fields) under a
    name, private or shared; then open it."""
    view = service.create(access, project, form.model_dump())
    flash(f"Saved the view “{view.name}”.", "success")
    return _to_view(org, project, view.id)


@bp.post(BASE + "/<uuid:view_id>/rename")
@page(action="saved_view.save", form=RenameForm, invalid=_refused)
def rename(org: str, project: Project, view_id: uuid.UUID, form: RenameForm, access: Access):
    view = service.rename(access, service.get_visible(access, project, view_id), form.name)
    flash(f"Renamed the view to “{view.name}”.", "success")
    return _to_view(org, project, view.id)


@bp.post(BASE + "/<uuid:view_id>/update")
@page(action="saved_view.save", form=SavedViewPatch, invalid=_refused)
def update(org: str, project: Project, view_id: uuid.UUID, form: SavedViewPatch, access: Access):
    """*Save changes*: store the filter, sort, grouping and layout the page shows in the
    open view, through the API's PATCH model and service (so the same people may). The
    form sends the whole list; a form sends no null, so a blank filter or grouping is
    none (where PATCH leaves out what stays)."""
    shown = {"pql": form.pql or "", "group_by": form.group_by}
    changes = form.model_dump(exclude_unset=True) | shown
    view = service.update(access, service.get_visible(access, project, view_id), changes)
    flash(f"Saved the changes to the view “{view.name}”.", "success")
    return _to_view(org, project, view.id)


@bp.post(BASE + "/<uuid:view_id>/delete")
@page(action="saved_view.save", invalid=_refused)
def delete(org: str, project: Project, view_id: uuid.UUID, access: Access):
    view = service.get_visible(access, project, view_id)
    name = view.name
    service.delete(access, view)
    flash(f"Deleted the view “{name}”.", "success")
    return _to_view(org, project)
