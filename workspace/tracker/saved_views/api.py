"""A project's saved views in the JSON API (docs/saved_views.md). Anyone who reads
the project lists and reads its shared views and their own; saving takes the member
role; someone else's private view is a 404; a shared view is changed only by its
owner or a project admin (403 otherwise)."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core.models import Project
from workspace.security.permissions import Access
from workspace.tracker.saved_views import service
from workspace.tracker.saved_views.models import SavedView
from workspace.tracker.saved_views.schemas import SavedViewCreate, SavedViewOut, SavedViewPatch

bp = api_blueprint("saved_views_api", __name__, "/api/v1/orgs/<uuid:org_id>")

BASE = "/projects/<uuid:project_id>/views"


def present(
    access: Access, view: SavedView, rights: service.EditRights | None = None
) -> SavedViewOut:
    out = SavedViewOut.model_validate(view)
    out.editable = service.can_edit(access, view, rights)
    return out


@bp.get(BASE)
@operation(
    "List the project's saved views you see",
    tag="saved views",
    action="saved_view.read",
    response=list[SavedViewOut],
)
def list_views(project: Project, access: Access):
    """Your own views (private or shared) and everyone's shared ones, by name."""
    rights = service.edit_rights(access, project.id)
    return [present(access, v, rights) for v in service.list_for(access, project)]


@bp.post(BASE)
@operation(
    "Save a view of the project's list or board",
    tag="saved views",
    action="saved_view.save",
    body=SavedViewCreate,
    response=SavedViewOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_view(project: Project, access: Access, body: SavedViewCreate):
    """The filter must compile (400 naming the line and column); a name you already
    use in this project, or one view past the caps, is a 409."""
    return present(access, service.create(access, project, body.model_dump()))


@bp.get(BASE + "/<uuid:view_id>")
@operation("Read a saved view", tag="saved views", action="saved_view.read", response=SavedViewOut)
def read_view(project: Project, access: Access, view_id: uuid.UUID):
    return present(access, service.get_visible(access, project, view_id))


@bp.patch(BASE + "/<uuid:view_id>")
@operation(
    "Rename, change, share or unshare a saved view",
    tag="saved views",
    action="saved_view.save",
    body=SavedViewPatch,
    response=SavedViewOut,
    errors=(400, 401, 403, 404, 409),
)
def update_view(project: Project, access: Access, view_id: uuid.UUID, body: SavedViewPatch):
    """Only what the body names changes; ``group_by`` and ``columns`` take null."""
    view = service.get_visible(access, project, view_id)
    changes = body.model_dump(exclude_unset=True)
    return present(access, service.update(access, view, changes))


@bp.delete(BASE + "/<uuid:view_id>")
@operation("Delete a saved view", tag="saved views", action="saved_view.save", status=204)
def delete_view(project: Project, access: Access, view_id: uuid.UUID):
    service.delete(access, service.get_visible(access, project, view_id))
