"""Who may read an alert's figure now: the one check the creator's figure and every
recipient go through."""

from __future__ import annotations

from workspace.analytics.alerts.models import Alert
from workspace.analytics.dashboards.service import load_dashboard
from workspace.core.models import Account
from workspace.errors import NotFoundError
from workspace.security.permissions import Access, authorize_route, org_access


def reader_access(alert: Alert, account: Account | None) -> Access:
    """``account``'s right to read the alert's dashboard now: the gate's own checks
    (an active member, the ``dashboard.read`` rule); NotFoundError when not. Agents
    read no mail."""
    if account is None or account.is_agent:
        raise NotFoundError("No such member.")
    access = authorize_route(org_access(alert.org_id, account), "dashboard.read", {})
    load_dashboard(access, alert.dashboard_id)
    return access
