"""The task page (placeholder until the page is built)."""

from __future__ import annotations

from flask import Blueprint

from workspace.auth.guards import page
from workspace.core import tasks
from workspace.security.permissions import Access

bp = Blueprint("task_pages", __name__)


@bp.get("/o/<org>/tasks/<task_key>")
@page(action="task.read")
def task(org: str, task_key: str, access: Access):
    return tasks.get_task_by_key(access.org.id, task_key).title
