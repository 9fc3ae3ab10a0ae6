"""``/api/v1/orgs/<org_id>/pql/suggest``: what the PQL box may offer at the cursor
(docs/pql.md#autocomplete). A read (GET): the signed-in page calls it with its session
cookie; a token holder (an agent included) gets the same filtered answer."""

from __future__ import annotations

from workspace.analytics.pql.names import Names
from workspace.analytics.pql.schemas import SuggestionOut, SuggestOut, SuggestQuery
from workspace.analytics.pql.suggest import suggest as suggest_at
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core.projects import get_project
from workspace.security.permissions import Access

bp = api_blueprint("pql_api", __name__, "/api/v1/orgs/<uuid:org_id>/pql")


@bp.get("/suggest")
@operation(
    "Suggest what may come next in a PQL filter",
    tag="pql",
    action="pql.suggest",
    query=SuggestQuery,
    response=SuggestOut,
)
def suggest(access: Access, query: SuggestQuery):
    """Fields, operators, values (states, people, projects, cycles, modules, the
    enumerations) and functions for the word at ``cursor``, at most 20, each with the
    text replacing ``q[start:end]``. Names come only from the org's live projects and
    active members; ``project`` (one of the org's projects) narrows states, cycles and
    modules to it."""
    project_id = None
    if query.project is not None:
        project_id = get_project(access.org.id, query.project).id  # 404 when not the org's
    ctx, items = suggest_at(query.q, query.cursor or 0, Names(access.org.id, project_id))
    return SuggestOut(
        expects=ctx.expects,
        field=ctx.field,
        start=ctx.start,
        end=ctx.end,
        suggestions=[
            SuggestionOut(label=s.label, insert=s.insert, kind=s.kind, detail=s.detail)
            for s in items
        ],
    )
