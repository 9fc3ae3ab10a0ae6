"""Dashboard subscriptions over the JSON API (docs/delivery.md#subscriptions).

Every view: the gate (another org is a 404), the dashboard's loader (someone's private
dashboard is a 404), one service call. The request commits."""

from __future__ import annotations

import uuid

from workspace.analytics.dashboards.service import load_dashboard
from workspace.analytics.subscriptions import service
from workspace.analytics.subscriptions.schemas import (
    DashboardSubscriptionDetail,
    DashboardSubscriptionIn,
    DashboardSubscriptionOut,
    SubscriptionSendOut,
)
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access

bp = api_blueprint("subscriptions_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "dashboards"
PATH = "/dashboards/<uuid:dashboard_id>/subscriptions"
WRITE_ERRORS = (400, 401, 403, 404, 409, 422)


@bp.get(PATH)
@operation(
    "List the dashboard's subscriptions: all of them for its owner, your own otherwise",
    tag=TAG,
    response=list[DashboardSubscriptionOut],
    action="dashboard.read",
)
def list_subscriptions(org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access):
    dashboard = load_dashboard(access, dashboard_id)
    return service.describe(service.list_subscriptions(access, dashboard), access.org)


@bp.post(PATH)
@operation(
    "Subscribe yourself (or, as the dashboard's owner, a member) to the dashboard by mail",
    tag=TAG,
    body=DashboardSubscriptionIn,
    response=DashboardSubscriptionOut,
    status=201,
    errors=WRITE_ERRORS,
    action="dashboard.subscribe",
)
def subscribe(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, access: Access, body: DashboardSubscriptionIn
):
    """A member already subscribed has their subscription changed (and resumed). A
    PQL filter that does not parse is a 422 with the parser's message; past the caps
    (SUBSCRIPTIONS_MAX_PER_DASHBOARD, SUBSCRIPTIONS_MAX_PER_MEMBER) a 409."""
    dashboard = load_dashboard(access, dashboard_id)
    subscription, _ = service.subscribe(access, dashboard, body)
    return service.describe([subscription], access.org)[0]


@bp.get(f"{PATH}/<uuid:subscription_id>")
@operation(
    "A subscription and its send history (newest first)",
    tag=TAG,
    response=DashboardSubscriptionDetail,
    action="dashboard.read",
)
def read_subscription(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access
):
    dashboard = load_dashboard(access, dashboard_id)
    subscription = service.load_subscription(access, dashboard, subscription_id)
    return service.detail(subscription, access.org)


@bp.delete(f"{PATH}/<uuid:subscription_id>")
@operation(
    "End a subscription (yours, or any on your dashboard)",
    tag=TAG,
    status=204,
    errors=WRITE_ERRORS,
    action="dashboard.subscribe",
)
def unsubscribe(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access
):
    dashboard = load_dashboard(access, dashboard_id)
    subscription = service.load_subscription(access, dashboard, subscription_id)
    service.remove(subscription, access.account.id)


@bp.post(f"{PATH}/<uuid:subscription_id>/send")
@operation(
    "Send the subscription's mail now, beside its schedule (202: a job sends it)",
    tag=TAG,
    response=SubscriptionSendOut,
    status=202,
    errors=WRITE_ERRORS,
    action="dashboard.subscribe",
)
def send_now(
    org_id: uuid.UUID, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access
):
    """While a send of the subscription is on its way, another is a 409."""
    dashboard = load_dashboard(access, dashboard_id)
    subscription = service.load_subscription(access, dashboard, subscription_id)
    return SubscriptionSendOut.model_validate(service.send_now(subscription))
