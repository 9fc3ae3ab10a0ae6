"""``GET /api/v1/orgs/<org_id>/search``: ranked full-text search over the tasks the
caller may read (docs/search.md)."""

from __future__ import annotations

from flask import url_for

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access
from workspace.tracker.search import service
from workspace.tracker.search.schemas import SearchHitOut, SearchOut, SearchProjectOut, SearchQuery

bp = api_blueprint("search_api", __name__, "/api/v1/orgs/<uuid:org_id>")


def hit_out(access: Access, hit: service.SearchHit) -> SearchHitOut:
    task = hit.task
    return SearchHitOut(
        id=task.id,
        key=task.key,
        title=task.title,
        project=SearchProjectOut.model_validate(task.project),
        state=task.state_name,
        state_category=task.state_category,
        match=hit.match,
        title_html=str(hit.title_html),
        snippet_html=str(hit.snippet_html),
        url=url_for("task_pages.task", org=access.org.slug, task_key=task.key),
    )


@bp.get("/search")
@operation(
    "Search tasks by key, words or phrases",
    tag="search",
    action="task.read",
    query=SearchQuery,
    response=SearchOut,
)
def search(access: Access, query: SearchQuery):
    """The caller's org's live tasks whose key, title, description or comments match
    ``q``, best first: an exact key, then by relevance (key and title weigh most),
    then (PostgreSQL) similar titles. Quotes make a phrase; any other punctuation is a
    separator, never query syntax."""
    hits = service.search_tasks(access, query.q, query.limit)
    return SearchOut(query=query.q, results=[hit_out(access, h) for h in hits])
