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


def _search_page(result: SearchResult, errors: dict[str, str]):
    """The page; a search or filter that cannot run is shown next to its box, a 400."""
    status = 400 if "q" in errors or "pql" in errors else 200
    return render_template(
        "tracker/search.html",
        result=result,
        query=result.query,
        errors=errors,
        nav_active="projects",
    ), status


def _cannot_run(error: ServiceError):
    """A filter the model took and PQL cannot run (it names the line and column)."""
    query, errors = listing.parse_list_query(request.args)
    return _search_page(SearchResult(query=query), {**errors, error.field or "pql": error.message})


@bp.get("/o/<org>/tasks")
@page(action="task.read", invalid=_cannot_run)
def search(access: Access):
    """Every project's tasks matching ``?pql=`` (and ``q``, ``sort``, ``dir``,
    ``offset``)."""
    # Wrong paging or sort values fall back to their defaults (a hand-edited URL), so
    # the query is read leniently rather than through ``@page(form=...)``.
    query, errors = listing.parse_list_query(request.args)
    if "q" in errors or "pql" in errors:
        return _search_page(SearchResult(query=query), errors)
    return _search_page(search_tasks(access, query), errors)
