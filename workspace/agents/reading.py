"""A reading's numbers and the org's words (docs/ai.md#the-reading).

The points of a reading come from the custom chart, exactly as the Custom tab would
compute them; a date range on a chart by one of the five narrows it by PQL on the
day the range is about (completion for done work, creation otherwise). A filter the
PQL parser refuses (a model's typo, a name that matches nothing) is dropped and
named among the words not used, rather than losing the chart.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import select

from workspace.agents.spec import ChartSpec, range_field
from workspace.analytics import time_series
from workspace.analytics.reports import service as analytics
from workspace.analytics.scope import Scope
from workspace.core.models import Account, OrgMember, Project
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


def _chart(scope: Scope, account_id: uuid.UUID, spec: ChartSpec) -> list[dict[str, Any]]:
    pql = spec.pql
    if spec.range and not spec.is_time:
        first, last = time_series.date_range(scope.today, "day", preset=spec.range)
        days = time_series.days_pql(range_field(spec.metric), first, last)
        pql = f"({pql}) AND {days}" if pql else days
    result = analytics.custom_chart(
        scope,
        account_id,
        metric=spec.metric,
        dimension=spec.dimension,
        priority=spec.priority,
        pql=pql,
        interval=spec.interval or "week",
        preset=spec.range if spec.is_time else None,
        split=spec.split,
    )
    return result["points"]


def points(
    scope: Scope, account_id: uuid.UUID, spec: ChartSpec
) -> tuple[ChartSpec, list[dict[str, Any]]]:
    """The reading's points; with a refused filter, the reading without it (the
    filter then among ``unused``). A ServiceError still means no chart at all."""
    try:
        return spec, _chart(scope, account_id, spec)
    except ServiceError:
        if not spec.filters:
            raise
    unused = spec.unused + tuple(f"filter: {f}" for f in spec.filters)
    spec = dataclasses.replace(spec, filters=(), unused=unused)
    return spec, _chart(scope, account_id, spec)


def custom_href(scope: Scope, spec: ChartSpec) -> str:
    """The Custom tab prefilled with the reading, to change any part of it."""
    query = spec.query()
    if scope.project_id is not None:
        query["project_id"] = str(scope.project_id)
    return f"/o/{scope.org.slug}/analytics/custom?" + urlencode(query)
