"""``/api/v1/orgs/<org_id>/command-menu``: what the command menu lists (docs/command_menu.md).
Both are reads (GET), so the signed-in page calls them with its session cookie; a
token holder (an agent included) gets the same filtered answer."""

from __future__ import annotations

from flask import url_for

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access
from workspace.tracker.command_menu import service
from workspace.tracker.command_menu.schemas import (
    CreateTargetOut,
    MenuItemOut,
    MenuOut,
    MenuQuery,
)

bp = api_blueprint("command_menu_api", __name__, "/api/v1/orgs/<uuid:org_id>/command-menu")


@bp.get("")
@operation(
    "Find what the command menu offers",
    tag="command menu",
    action="command_menu.use",
    query=MenuQuery,
    response=MenuOut,
)
def find(access: Access, query: MenuQuery):
    """Tasks (an exact key first, then by words), projects, dashboards, people, pages
    and actions the caller may open, at most 20; with ``q`` blank, the ``recent``
    items still allowed, then the actions."""
    items = service.menu_items(access, query.q, service.parse_recent(query.recent))
    return MenuOut(
        query=query.q,
        items=[MenuItemOut.model_validate(item) for item in items],
    )


@bp.get("/create-targets")
@operation(
    "List the projects where the caller may create a task",
    tag="command menu",
    action="command_menu.use",
    response=list[CreateTargetOut],
)
def create_targets(access: Access):
    """The projects (by name) where the caller has a role that may create tasks, each
    with the task-create form route the menu posts to."""
    return [
        CreateTargetOut(
            id=p.id,
            name=p.name,
            identifier=p.identifier,
            create_url=url_for("core_pages.create_task", org=access.org.slug, project_id=p.id),
        )
        for p in service.create_targets(access)
    ]
