"""Drill-down on the analytics page: the hrefs of the overview's cards and breakdowns,
flow's categories, workload's cells, a pivot's cells and totals and the custom chart's
points (docs/analytics.md#drill-down), written with :mod:`workspace.analytics.drill`.
"""

from __future__ import annotations

from typing import Any

from workspace.analytics.drill import (
    Names,
    assignee_clause,
    category_clause,
    expression,
    href,
    kind_clause,
    link,
    metric_clause,
    priority_clause,
    status_clause,
    total_link,
    with_links,
)
from workspace.analytics.scope import Scope


def overview_links(scope: Scope, result: dict) -> dict[str, Any]:
    """Hrefs of the overview's cards and breakdowns: ``total``, ``completed``,
    ``overdue``, and ``category``/``priority``/``kind`` -> {key: href}."""

    def to(*parts: str | None) -> str | None:
        return href(scope.org.slug, scope.project_id, expression(*parts))

    return {
        "total": to(),
        "completed": to(metric_clause("done")),
        "overdue": to("isOverdue()"),
        "category": {c: to(category_clause(c)) for c in result["by_category"]},
        "priority": {p: to(priority_clause(p)) for p in result["by_priority"]},
        "kind": {k: to(kind_clause(k)) for k in result["by_kind"]},
    }


def flow_links(scope: Scope, result: dict) -> dict:
    """An ``href`` on each open-work category of the flow rollup (in place)."""
    for c in result["categories"]:
        clause = category_clause(c["category"])
        c["href"] = href(scope.org.slug, scope.project_id, expression(clause))
    return result


def workload_links(scope: Scope, rows: list[dict]) -> dict[str, dict[str, str | None]]:
    """Per assignee id: hrefs of ``open`` and ``in_progress``. Completed in the last
    30 days has none: it counts from a moment (now - 30 x 24 h) that PQL's whole-day
    dates cannot state exactly."""
    org_slug, project_id = scope.org.slug, scope.project_id
    out = {}
    for r in rows:
        who = assignee_clause(r["email"])
        out[str(r["assignee_id"])] = {
            "open": href(org_slug, project_id, expression(metric_clause("open"), who)),
            "in_progress": href(org_slug, project_id, expression(category_clause("started"), who)),
        }
    return out


def pivot_links(scope: Scope, result: dict) -> dict[str, Any]:
    """Hrefs of a pivot: ``cells`` {(row key, col key): href}, ``rows`` and ``cols``
    {key: href} for the totals."""
    org_slug, project_id = scope.org.slug, scope.project_id
    row, col = result["row"], result["col"]
    names = Names(scope.org_id)
    names.load(row, [r["key"] for r in result["rows"]])
    names.load(col, [c["key"] for c in result["cols"]])
    return {
        "cells": {
            (c["row"], c["col"]): link(
                org_slug, project_id, [], [(row, c["row"]), (col, c["col"])], names
            )
            for c in result["cells"]
        },
        "rows": {
            r["key"]: link(org_slug, project_id, [], [(row, r["key"])], names)
            for r in result["rows"]
        },
        "cols": {
            c["key"]: link(org_slug, project_id, [], [(col, c["key"])], names)
            for c in result["cols"]
        },
    }


def custom_links(
    points: list[dict[str, Any]],
    scope: Scope,
    *,
    metric: str,
    dimension: str,
    status: str | None,
    priority: str | None,
    pql: str | None,
) -> str | None:
    """Hrefs on a custom chart's points (in place); returns the href of them all."""
    extra = [
        status_clause(status) if status else None,
        priority_clause(priority) if priority else None,
    ]
    with_links(
        points,
        org_slug=scope.org.slug,
        dimension=dimension,
        metric=metric,
        names=Names(scope.org_id).load(dimension, [p.get("id") for p in points]),
        project_id=scope.project_id,
        filters=(pql,),
        extra=extra,
    )
    return total_link(
        org_slug=scope.org.slug,
        metric=metric,
        project_id=scope.project_id,
        filters=(pql,),
        extra=extra,
    )


def key_map(links: dict[str, str | None]) -> dict[str, str]:
    """{key: href} for the chart click fallback, also under the key's capitalized
    form (how a chart may label it)."""
    out: dict[str, str] = {}
    for key, url in links.items():
        if url:
            for text in (key, key.capitalize(), key.lower()):
                out[text] = url
    return out
