"""Project settings pages (placeholder until the pages are built)."""

from __future__ import annotations

import uuid

from flask import Blueprint

from workspace.auth.guards import page
from workspace.core import projects
from workspace.security.permissions import Access

bp = Blueprint("project_settings", __name__)


@bp.get("/o/<org>/projects/<uuid:project_id>/settings")
@page(action="project.read")
def general(org: str, project_id: uuid.UUID, access: Access):
    return projects.get_project(access.org.id, project_id).name


@bp.get("/o/<org>/projects/<uuid:project_id>/members")
@page(action="project.read")
def members(org: str, project_id: uuid.UUID, access: Access):
    return projects.get_project(access.org.id, project_id).name
