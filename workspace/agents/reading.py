"""A reading's numbers and the org's words (docs/ai.md#the-reading).

The points of a reading come from the custom chart, exactly as the Custom tab would
compute them; a date range on a chart by one of the five narrows it by PQL on the
day the range is about (completion for done work, creation otherwise). A filter the
PQL parser refuses (a model's typo, a name that matches nothing) is dropped and
named among the words not used, rather than losing the chart.

A reading corrected in the answer's controls (:func:`redraw`) is the custom chart's
own query (``CustomQuery``), checked by that model and charted by the same
:func:`chart`: a value it refuses is an error on its field, and nothing here calls
a model or spends a credit.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import select

from workspace.agents.spec import KINDS, PRIORITIES, ChartSpec, range_field, title_for
from workspace.analytics import time_series
from workspace.analytics.dimensions import UNASSIGNED
from workspace.analytics.reports import service as analytics
from workspace.analytics.schemas import CustomQuery
from workspace.analytics.scope import Scope
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.core.models import Account, OrgMember, Project, State, StateCategory
from workspace.core.projects import DEFAULT_STATES
from workspace.errors import ServiceError
from workspace.extensions import db

#: The most names of each sort handed to the interpreter (a larger org still asks
#: by the names it uses most: the first ones by name).
MAX_NAMES = 500


def org_words(scope: Scope) -> dict[str, list[tuple[str, str]]]:
    """The org's project names and identifiers and its members' names, as the
    offline interpreter takes them: (the words, the PQL value)."""
    projects = select(Project.name, Project.identifier).where(
        Project.org_id == scope.org_id, Project.archived_at.is_(None)
    )
    pairs: list[tuple[str, str]] = []
    for name, identifier in db.session.execute(projects.order_by(Project.name).limit(MAX_NAMES)):
        pairs += [(name, name), (identifier, identifier)]
    people = db.session.execute(
        select(Account.name, Account.email)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(OrgMember.org_id == scope.org_id)
        .order_by(Account.name)
        .limit(MAX_NAMES)
    )
    return {"projects": pairs, "people": [(n, e) for n, e in people if n and n.strip()]}


def chart(
    scope: Scope,
    account_id: uuid.UUID,
    query: CustomQuery,
) -> dict[str, Any]:
    """The custom chart for ``query`` (its ``points``, and over time with a split its
    ``series``), exactly as the Custom tab computes it; a range on a chart by one of
    the five narrows it by PQL on the day the range is about. A value the chart
    refuses is a ServiceError naming its field."""
    pql, first, last, preset = query.filter, query.from_, query.to, query.range
    if query.dimension not in TIME_DIMENSIONS and (preset or first or last):
        # The days as a series by day would count them (from alone runs to today).
        first, last = time_series.date_range(scope.today, "day", first, last, preset)
        days = time_series.days_pql(range_field(query.metric), first, last)
        pql = f"({pql}) AND {days}" if pql else days
        first = last = preset = None
    result = analytics.custom_chart_for(
        scope, account_id, query, pql=pql, first=first, last=last, preset=preset
    )
    return result


def _chart(scope: Scope, account_id: uuid.UUID, spec: ChartSpec) -> dict[str, Any]:
    return chart(scope, account_id, CustomQuery.model_validate(spec.query()))


def draw(scope: Scope, account_id: uuid.UUID, spec: ChartSpec) -> tuple[ChartSpec, dict[str, Any]]:
    """The reading's chart (:func:`chart`); with a refused filter, the reading without
    it (the filter then among ``unused``). A ServiceError still means no chart at all."""
    try:
        return spec, _chart(scope, account_id, spec)
    except ServiceError:
        if not spec.filters:
            raise
    unused = spec.unused + tuple(f"filter: {f}" for f in spec.filters)
    spec = dataclasses.replace(spec, filters=(), unused=unused)
    return spec, _chart(scope, account_id, spec)


def zero_points(scope: Scope, dimension: str) -> list[dict[str, Any]]:
    """Every value of the dimension at 0: what a chart over nothing shows, so that an
    answer is never empty (docs/ai.md#never-an-error)."""
    if dimension == "priority":
        return [{"key": p, "value": 0, "id": None} for p in PRIORITIES]
    if dimension == "kind":
        return [{"key": k, "value": 0, "id": None} for k in KINDS]
    if dimension == "assignee":
        return [{"key": UNASSIGNED, "value": 0, "id": None}]
    projects = select(Project.id, Project.name).where(Project.org_id == scope.org_id)
    if scope.project_id is not None:
        projects = projects.where(Project.id == scope.project_id)
    if dimension == "project":
        rows = db.session.execute(projects.order_by(Project.name)).all()
        return [{"key": name, "value": 0, "id": str(pid)} for pid, name in rows]
    names = db.session.scalars(
        select(State.name).where(
            State.project_id.in_(projects.with_only_columns(Project.id)),
            State.category != StateCategory.TRIAGE,  # never counted, never shown
        )
    )
    # An org with no project yet shows the workflow every new project starts with.
    shown = set(names) or {
        n for n, category, _ in DEFAULT_STATES if category != StateCategory.TRIAGE
    }
    return [{"key": name, "value": 0, "id": None} for name in sorted(shown, key=str.lower)]


def custom_href(scope: Scope, spec: ChartSpec | dict[str, Any]) -> str:
    """The Custom tab prefilled with the reading (or a query of it), to change any
    part of it."""
    query = dict(spec.query() if isinstance(spec, ChartSpec) else spec)
    if scope.project_id is not None:
        query["project_id"] = str(scope.project_id)
    return f"/o/{scope.org.slug}/analytics/custom?" + urlencode(query)


def understood(query: CustomQuery) -> dict[str, Any]:
    """The query's parts a chart uses, as the custom chart's query string names them
    (what the reading's controls are filled with)."""
    out = query.model_dump(mode="json", by_alias=True, exclude_none=True)
    out.pop("project_id", None)
    if query.dimension not in TIME_DIMENSIONS:
        out.pop("interval", None)  # a chart by one of the five has no buckets
    return out


def _words(query: CustomQuery) -> str:
    """The edited reading in words, as an answer's reading says them."""
    time = query.dimension in TIME_DIMENSIONS
    status = (f'status = "{query.status}"',) if query.status else ()
    spec = ChartSpec(
        query.metric,
        query.dimension,
        "",
        priority=query.priority,
        interval=query.interval if time else None,
        range=query.range,
        split=query.split if time else None,
        filters=status + ((query.filter,) if query.filter else ()),
    )
    words = spec.words()
    if query.range is None and (query.from_ or query.to):
        on = query.dimension if time else range_field(query.metric)
        span = f"from {query.from_.isoformat()}" if query.from_ else ""
        span += f" to {query.to.isoformat()}" if query.to else ""
        head, _, where = words.partition(", where ")
        words = f"{head}, {on} {span.strip()}" + (f", where {where}" if where else "")
    return words


def redraw(
    scope: Scope, account_id: uuid.UUID, query: CustomQuery, unused: list[str]
) -> dict[str, Any]:
    """The answer for a reading the member corrected in its controls: the custom
    chart's points for ``query``, in the answer's shape, with no model called and no
    AI run or credit (docs/ai.md#correcting-the-reading). A value the chart refuses
    is a ServiceError naming its field, shown by that control."""
    drawn = chart(scope, account_id, query)
    points = drawn["points"] or zero_points(scope, query.dimension)
    time = query.dimension in TIME_DIMENSIONS
    asked = understood(query)
    # A filter that is just a kind is titled and saved (the Save form) as that kind.
    kind = next((k for k in KINDS if query.filter == f"kind = {k}"), None)
    return {
        "title": title_for(
            query.metric, query.dimension, kind, query.priority, query.interval if time else None
        ),
        "metric": query.metric,
        "dimension": query.dimension,
        "points": points,
        "series": drawn.get("series"),
        "ai_run_id": None,
        "outcome": "edited",
        "offline": False,
        "fallback": False,
        "kind": kind,
        "priority": query.priority,
        "model_note": None,
        "reading": _words(query),
        "understood": asked,
        "unused": unused,
        "custom_href": custom_href(scope, asked),
        "edited": True,
    }
