"""Drill-down: from a number on a chart, a table or a headline to the tasks behind it.

Every figure counts "the tasks that count" (scope.py) that pass some filters (the
dashboard's, the view's, the widget's, a custom chart's status or priority), meet the
metric (done, open) and fall in one bucket of a dimension. The link opens a task list
filtered by ONE PQL expression saying exactly that, which the reader can read and edit:

    isCounted() AND (<dashboard filter>) AND (<view filter>) AND (<widget filter>)
        AND statusCategory = completed AND assignee = "ada@example.com"

``isCounted()`` leaves out what analytics never counts and the task list would show
(triage, drafts; the list already hides archived and deleted tasks). A project-scoped
figure opens that project's list (``core_pages.project``); an org-wide one the
read-only org task search (``tracker_search.search``, ``/o/<org>/tasks``). The number
on the list equals the number clicked (tests/analytics/test_drilldown.py).

Chart points get an ``href``; the chart puts it in the trace's ``customdata`` and
static/js/analytics.js follows it on click. Tables and headline numbers are plain
links. See docs/analytics.md, "Drill-down". This module writes the PQL and the links;
the analytics page's figures are linked by ``reports/links.py``, a dashboard's widgets
by ``dashboards/query.py``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from typing import Any

from flask import url_for
from sqlalchemy import select
from werkzeug.routing import BuildError

from workspace.analytics import dimensions
from workspace.analytics.charts import plain
from workspace.analytics.rollups import COMPLETED
from workspace.analytics.vocabulary import MAX_PQL_LENGTH
from workspace.core.models import Account, OrgMember, Project
from workspace.extensions import db

COUNTED = "isCounted()"
#: Open work (flow, the forecast's dates, the home page's "Active"): cancelled is closed.
OPEN_WORK = "statusCategory IN (backlog, unstarted, started)"
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = {"and", "or", "not", "in", "is", "empty"}


def value(text: str) -> str:
    """A PQL value: a plain word as it is, anything else double-quoted and escaped."""
    if _BARE.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- clauses ---------------------------------------------------------------------------


def metric_clause(metric: str) -> str | None:
    """``scope.metric_condition`` in PQL: done is completed, open is anything else."""
    if metric == "done":
        return f"statusCategory = {COMPLETED}"
    if metric == "open":
        return f"statusCategory != {COMPLETED}"
    return None


def status_clause(name: str) -> str:
    return f"status = {value(name)}"


def priority_clause(priority: str) -> str:
    return f"priority = {value(priority)}"


def kind_clause(kind: str) -> str:
    return f"kind = {value(kind)}"


def category_clause(category: str) -> str:
    return f"statusCategory = {value(category)}"


def assignee_clause(email: str | None) -> str:
    """A person by email (unique; a name may be shared), or nobody."""
    return "assignee IS EMPTY" if email is None else f"assignee = {value(email)}"


def project_clause(identifier: str) -> str:
    return f"project = {value(identifier)}"


def user_filter(text: str | None) -> str | None:
    """A filter someone wrote, parenthesized so its ORs stay inside."""
    text = (text or "").strip()
    return f"({text})" if text else None


def expression(*parts: str | None) -> str:
    """``isCounted()`` AND every given part."""
    return " AND ".join([COUNTED, *(p for p in parts if p)])


def href(org_slug: str, project_id: uuid.UUID | None, pql: str) -> str | None:
    """The task list showing ``pql``: the project's list, or the org task search.
    ``None`` when the expression is longer than a filter may be (the layers' own
    filters are up to 2,000 characters each); there is then no link."""
    if len(pql) > MAX_PQL_LENGTH:
        return None
    if project_id is not None:
        return url_for("core_pages.project", org=org_slug, project_id=project_id, pql=pql)
    try:
        return url_for("tracker_search.search", org=org_slug, pql=pql)
    except BuildError:  # the org task search is not registered: no link, never a 500
        return None


# -- buckets ---------------------------------------------------------------------------


class Names:
    """Emails of assignees and identifiers of projects, looked up once per batch."""

    def __init__(self, org_id: uuid.UUID) -> None:
        #: PQL names people among the org's members.
        self.org_id = org_id
        self.emails: dict[str, str] = {}
        self.identifiers: dict[str, str] = {}

    def load(self, dimension: str, ids: Iterable[Any]) -> Names:
        if dimension not in ("assignee", "project"):
            return self
        wanted = [uuid.UUID(str(i)) for i in ids if i and str(i) != dimensions.UNASSIGNED]
        if not wanted:
            return self
        if dimension == "assignee":
            # Someone no longer a member cannot be named in PQL: no link for them.
            rows = db.session.execute(
                select(Account.id, Account.email)
                .join(OrgMember, OrgMember.account_id == Account.id)
                .where(Account.id.in_(wanted), OrgMember.org_id == self.org_id)
            )
            self.emails.update({str(i): e for i, e in rows})
        elif dimension == "project":
            rows = db.session.execute(
                select(Project.id, Project.identifier).where(Project.id.in_(wanted))
            )
            self.identifiers.update({str(i): ident for i, ident in rows})
        return self


def bucket(dimension: str, key: str, names: Names) -> tuple[str | None, uuid.UUID | None]:
    """(PQL clause, project to open) of one bucket: ``key`` is the dimension's key
    (a state name, an enum value, an account or project id, ``unassigned``).

    A project bucket opens that project's list, which needs no clause."""
    if dimension == "status":
        return status_clause(key), None
    if dimension == "priority":
        return priority_clause(key), None
    if dimension == "kind":
        return kind_clause(key), None
    if dimension == "category":
        return category_clause(key), None
    if dimension == "assignee":
        if key == dimensions.UNASSIGNED:
            return assignee_clause(None), None
        if str(key) not in names.emails:
            raise LookupError(key)
        return assignee_clause(names.emails[str(key)]), None
    if dimension == "project":
        return None, uuid.UUID(str(key))
    raise ValueError(f"no drill-down for dimension {dimension!r}")


def point_key(dimension: str, point: dict[str, Any]) -> str:
    """The dimension key of a custom-chart point: its id for assignee and project
    (``None`` id: unassigned), else its key (a state name or an enum value)."""
    if dimension in ("assignee", "project"):
        return str(point["id"]) if point.get("id") else dimensions.UNASSIGNED
    return str(point["key"])


def link(
    org_slug: str,
    project_id: uuid.UUID | None,
    parts: list[str | None],
    buckets: list[tuple[str, str]],
    names: Names,
) -> str | None:
    """The href for ``parts`` (filters, metric) AND each (dimension, key) bucket."""
    clauses = list(parts)
    for dimension, key in buckets:
        try:
            clause, bucket_project = bucket(dimension, key, names)
        except LookupError:  # an account gone since it was counted: no link
            return None
        clauses.append(clause)
        project_id = bucket_project or project_id
    return href(org_slug, project_id, expression(*clauses))


def with_links(
    points: list[dict[str, Any]],
    *,
    org_slug: str,
    dimension: str,
    metric: str,
    names: Names,
    project_id: uuid.UUID | None = None,
    filters: Iterable[str | None] = (),
    extra: Iterable[str | None] = (),
) -> list[dict[str, Any]]:
    """Give each custom-chart point (``key``, ``value``, ``id``) its ``href``.

    ``names`` holds the PQL names of the points' people or projects (:class:`Names`,
    loaded by the caller, once for every chart it links); ``filters`` are PQL texts
    (dashboard, view, widget filter), each parenthesized; ``extra`` are clauses already
    in PQL (a custom chart's status or priority). Points are changed in place and
    returned."""
    parts = [*(user_filter(f) for f in filters), *extra, metric_clause(metric)]
    for point in points:
        point["href"] = link(
            org_slug, project_id, parts, [(dimension, point_key(dimension, point))], names
        )
    return points


def total_link(
    *,
    org_slug: str,
    metric: str,
    project_id: uuid.UUID | None = None,
    filters: Iterable[str | None] = (),
    extra: Iterable[str | None] = (),
) -> str | None:
    """The href of a headline number: every bucket together."""
    parts = [*(user_filter(f) for f in filters), *extra, metric_clause(metric)]
    return href(org_slug, project_id, expression(*parts))


def label_map(points: list[dict[str, Any]]) -> dict[str, str]:
    """Chart label -> href, for a chart whose trace has no ``customdata`` yet: the
    label as written and as Plotly-escaped (charts.plain)."""
    out: dict[str, str] = {}
    for p in points:
        if p.get("href"):
            label = "Unassigned" if p["key"] == dimensions.UNASSIGNED else str(p["key"])
            for text in (label, label.capitalize(), label.lower()):
                out[text] = p["href"]
                out[plain(text)] = p["href"]
    return out
