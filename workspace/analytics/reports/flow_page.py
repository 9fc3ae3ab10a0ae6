"""The "Flow over time" tab: the cumulative flow diagram and the cycle-time scatter
over one date range, scope and PQL filter (docs/analytics.md#flow-over-time)."""

from __future__ import annotations

import uuid
from typing import Any

from workspace.analytics import charts, flow_charts
from workspace.analytics.flow_schemas import FlowTimeQuery
from workspace.analytics.reports import flow_service
from workspace.analytics.scope import Scope


def build(scope: Scope, query: FlowTimeQuery, account: uuid.UUID) -> dict[str, Any]:
    """Both charts, and the figures the tables beside them list."""
    options = {"start": query.from_, "end": query.to, "pql": query.filter}
    flow = flow_service.cumulative_flow(scope, account, **options)
    cycle = flow_service.cycle_time(scope, account, **options)
    return {
        "flow": flow,
        "cycle": cycle,
        "last_day": flow["days"][-1],
        "empty": not cycle["points"]
        and not any(d[c] for d in flow["days"] for c in flow["categories"]),
        "figures": {
            "cfd": charts.to_json(flow_charts.cumulative_flow_figure(flow)),
            "cycle": charts.to_json(flow_charts.cycle_time_figure(cycle)),
        },
    }
