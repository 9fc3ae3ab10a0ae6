"""``/o/<org>/search``: ranked search over keys, titles, descriptions and comments
(HTMX answers the results block alone while typing); ``/o/<org>/tasks``: the org
task list under a PQL filter (read-only; a task opens its page). Registered by this
package's ``init_app``."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from workspace.auth.guards import page, render
from workspace.core.search_index import MAX_QUERY
from workspace.errors import ServiceError
from workspace.inputs import first_error
from workspace.security.permissions import Access
from workspace.tracker import listing
from workspace.tracker.search.schemas import SearchPageQuery
from workspace.tracker.search.service import SearchResult, list_org_tasks, search_tasks

bp = Blueprint("tracker_search", __name__)

#: Results the search page shows.
PAGE_RESULTS = 30


def _pql_for(q: str) -> str:
    """The search as a PQL predicate, for the task list's filter (drill-down)."""
    return 'text ~ "' + q.replace("\\", " ").replace('"', " ").strip() + '"'


def _find_page(q: str, hits: list, error: str = ""):
    return render(
        "tracker/find.html",
        status=400 if error else 200,
        q=q,
        hits=hits,
        error=error,
        max_query=MAX_QUERY,
        pql=_pql_for(q) if q and not error else "",
        nav_active="projects",
    )


def _cannot_search(error: ServiceError):
    """A query the model refused (too long): the message beside the box, a 400."""
    return _find_page("", [], first_error(error))


@bp.get("/o/<org>/search")
@page(action="task.read", form=SearchPageQuery, invalid=_cannot_search, block="results")
def find(access: Access, form: SearchPageQuery):
    """Tasks matching ``?q=`` best first; HTMX gets the results block alone."""
    hits = search_tasks(access, form.q, PAGE_RESULTS) if form.q else []
    return _find_page(form.q, hits)


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
    return _search_page(list_org_tasks(access, query), errors)
