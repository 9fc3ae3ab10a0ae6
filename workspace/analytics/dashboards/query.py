"""One request's reading of a dashboard: the filter layers compiled once, the widgets
computed from them, linked to the tasks behind each figure and presented.

    query = DashboardQuery.of(access, dashboard, view_filter)
    query.filter_error                   # the page: a broken dashboard or view filter
    query.views(specs, linked=True)      # the bodies: computed, linked, presented

The page, its widget bodies (all at once or one card), the widget form's preview, the
compute API and both exports go through it. The database is read in two steps, once
per request whatever the number of widgets: :meth:`compute` (the counts, state names
and categories, labels, project places) and :meth:`link` (the PQL names of the people
and projects that drill-down links name). Presenting and charting read nothing else
(docs/dashboards.md#computing).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlalchemy import ColumnElement

from workspace.analytics import drill, time_series
from workspace.analytics.dashboards import compute
from workspace.analytics.dashboards.compute import WidgetResult, WidgetSpec
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.present import WidgetView, present
from workspace.analytics.dashboards.ranges import DateRange
from workspace.analytics.pql import PQLError, compile_pql
from workspace.analytics.scope import make_scope
from workspace.core.models import Org
from workspace.security.permissions import Access


class DashboardQuery:
    """A dashboard's filter layers for one request: the saved dashboard filter and this
    view's filter (``?filter=``), with ``currentUser()`` the reader; and the date range
    of its time-dimension widgets: the dashboard's, or this view's override
    (``?range=``, ``from``, ``to``; None: no override), docs/dashboards.md#time."""

    def __init__(
        self,
        org: Org,
        account_id: uuid.UUID | None,
        dashboard_filter: str | None = None,
        view_filter: str | None = None,
        *,
        now: datetime | None = None,
        dashboard_range: DateRange = DateRange(),
        view_range: DateRange | None = None,
    ) -> None:
        self.scope = make_scope(org, now=now)
        self.account_id = account_id
        self.dashboard_filter = dashboard_filter
        self.view_filter = view_filter
        self.dashboard_range = dashboard_range
        self.view_range = view_range

    @classmethod
    def of(
        cls,
        access: Access,
        dashboard: Dashboard,
        view_filter: str | None,
        view_range: DateRange | None = None,
    ) -> DashboardQuery:
        return cls(
            access.org,
            access.account.id,
            dashboard.pql_filter,
            view_filter,
            dashboard_range=DateRange.of(dashboard),
            view_range=view_range,
        )

    @cached_property
    def _layers(self) -> list[ColumnElement[bool]] | PQLError:
        """The dashboard filter and the view filter as SQL, compiled on first use and kept
        for the request; a PQL error names its layer (``pql_filter`` or ``filter``) and
        position."""
        conditions = []
        for text, name in ((self.dashboard_filter, "pql_filter"), (self.view_filter, "filter")):
            if text and text.strip():
                try:
                    conditions.append(
                        compile_pql(text, self.scope.org_id, self.account_id, scope=self.scope)
                    )
                except PQLError as exc:
                    exc.field = name
                    return exc
        return conditions

    @property
    def filter_error(self) -> PQLError | None:
        """Why the dashboard or the view filter does not compile (its ``field`` says
        which: ``pql_filter`` or ``filter``), or None."""
        return self._layers if isinstance(self._layers, PQLError) else None

    def compute(self, specs: list[WidgetSpec]) -> list[WidgetResult]:
        """Every widget's points, in the order of ``specs``; raises the layer's
        :class:`PQLError` (a 400) when a shared filter is broken, since every widget
        depends on it. A broken widget filter fails that widget alone."""
        if isinstance(self._layers, PQLError):
            raise self._layers
        return compute.compute(
            self.scope,
            self.account_id,
            self._layers,
            specs,
            dashboard_range=self.dashboard_range,
            view_range=self.view_range,
        )

    def results(self, specs: list[WidgetSpec]) -> list[WidgetResult]:
        """As :meth:`compute`, but a broken shared filter fails every widget with its
        message instead (a page shows the error in each card)."""
        error = self.filter_error
        if error is not None:
            return [WidgetResult(spec, error=error.message) for spec in specs]
        return self.compute(specs)

    def link(self, results: list[WidgetResult]) -> list[WidgetResult]:
        """An ``href`` on every point and a ``total_href`` on every widget: the tasks
        behind each figure, under the three filter layers, the widget's project and
        metric (docs/analytics.md#drill-down). The people's and projects' PQL names are
        looked up once for every widget."""
        names = drill.Names(self.scope.org_id)
        ids: dict[str, list[Any]] = {}
        for result in results:
            if result.error is None and result.series is None:
                ids.setdefault(result.spec.dimension, []).extend(p.get("id") for p in result.points)
        for dimension, wanted in ids.items():
            names.load(dimension, wanted)
        slug = self.scope.org.slug
        for result in results:
            if result.error is not None:
                continue
            spec = result.spec
            filters = (self.dashboard_filter, self.view_filter, spec.filter)
            if result.series is not None:
                # A bucket's link: the layers, the metric and exactly the bucket's days.
                time_series.add_links(result.series, result.scope, spec.metric, list(filters))
                result.total_href = result.series["total_href"]
                continue
            drill.with_links(
                result.points,
                org_slug=slug,
                dimension=spec.dimension,
                metric=spec.metric,
                names=names,
                project_id=spec.project_id,
                filters=filters,
            )
            result.total_href = drill.total_link(
                org_slug=slug, metric=spec.metric, project_id=spec.project_id, filters=filters
            )
        return results

    def views(self, specs: list[WidgetSpec], *, linked: bool = False) -> list[WidgetView]:
        """The widgets as a template shows them; ``linked`` adds the drill-down links
        (the live page; not the exports, nor the preview of a widget not saved yet). A
        broken shared filter fails every widget."""
        results = self.results(specs)
        if linked:
            self.link(results)
        return [present(result) for result in results]


def specs(dashboard: Dashboard) -> list[WidgetSpec]:
    """A saved dashboard's widgets, in grid order."""
    return [WidgetSpec.of(widget) for widget in dashboard.widgets]


def printed_views(
    access: Access,
    dashboard: Dashboard,
    view_filter: str | None,
    view_range: DateRange | None = None,
) -> list[WidgetView]:
    """The widgets as the exports print them: no links; a broken shared filter is a 400."""
    query = DashboardQuery.of(access, dashboard, view_filter, view_range)
    results = query.compute(specs(dashboard))
    return [present(result) for result in results]
