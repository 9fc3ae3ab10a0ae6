"""``/o/<org>/tasks``: the org task search page (read-only; a task opens its page),
registered by this package's ``init_app``."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from workspace.auth.guards import page
from workspace.errors import ServiceError
from workspace.security.permissions import Access
from workspace.tracker import listing
from workspace.tracker.search.service import SearchResult, search_tasks

bp = Blueprint("tracker_search", __name__)


@bp.get("/o/<org>/tasks")
@page(action="task.read")
def search(org: str, access: Access):
    """Every project's tasks matching ``?pql=`` (and ``q``, ``sort``, ``dir``,
    ``offset``); a filter that cannot run is shown next to its box with a 400."""
    query, errors = listing.parse_list_query(request.args)
    result = SearchResult(query=query)
    status = 200
    if "q" not in errors and "pql" not in errors:
        try:
            result = search_tasks(access, query)
        except ServiceError as exc:
            errors[exc.field or "pql"] = exc.message
    if "q" in errors or "pql" in errors:
        status = 400
    return render_template(
        "tracker/search.html",
        result=result,
        query=query,
        errors=errors,
        nav_active="projects",
    ), status
