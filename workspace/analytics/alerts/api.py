"""Alerts over the JSON API (docs/delivery.md#alerts). Every view: the gate (another
org is a 404), one service call; an alert that is not the caller's is a 404. The
request commits."""

from __future__ import annotations

import uuid

from workspace.analytics.alerts import service
from workspace.analytics.alerts.schemas import (
    AlertChange,
    AlertDetail,
    AlertIn,
    AlertOut,
    MuteIn,
)
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.security.permissions import Access

bp = api_blueprint("alerts_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "alerts"
WRITE_ERRORS = (400, 401, 403, 404, 409, 422)


@bp.get("/alerts")
@operation("Your alerts in this organization", tag=TAG, response=list[AlertOut],
           action="alert.read")  # fmt: skip
def list_alerts(org_id: uuid.UUID, access: Access):
    return [service.describe(alert) for alert in service.my_alerts(access)]


@bp.post("/alerts")
@operation(
    "Create an alert on a dashboard widget's figure (checked as you see it)",
    tag=TAG,
    body=AlertIn,
    response=AlertOut,
    status=201,
    errors=WRITE_ERRORS,
    action="alert.write",
)
def create_alert(org_id: uuid.UUID, access: Access, body: AlertIn):
    """A dashboard you cannot read or a widget not on it is a 404; a change of 0% or
    less, a category on a time widget, or a recipient who cannot read the dashboard
    a 400; past ALERTS_MAX_PER_MEMBER alerts a 409."""
    return service.describe(service.create(access, body.dashboard_id, body))


@bp.get("/alerts/<uuid:alert_id>")
@operation("An alert and its history (newest first)", tag=TAG, response=AlertDetail,
           action="alert.read")  # fmt: skip
def read_alert(org_id: uuid.UUID, alert_id: uuid.UUID, access: Access):
    return service.detail(service.load_alert(access, alert_id))


@bp.put("/alerts/<uuid:alert_id>")
@operation(
    "Change an alert: every field as given (a new rule starts again at ok)",
    tag=TAG,
    body=AlertChange,
    response=AlertOut,
    errors=WRITE_ERRORS,
    action="alert.write",
)
def update_alert(org_id: uuid.UUID, alert_id: uuid.UUID, access: Access, body: AlertChange):
    """The widget must be on the alert's dashboard, which you still read (else 404);
    another ``dashboard_id`` is a 422. Another widget, category, condition or threshold
    starts the alert again (state ok, checked at the next run); a paused alert resumes."""
    alert = service.load_alert(access, alert_id)
    return service.describe(service.update(access, alert, body, body.dashboard_id))


@bp.delete("/alerts/<uuid:alert_id>")
@operation("Delete an alert and its history", tag=TAG, status=204, errors=WRITE_ERRORS,
           action="alert.write")  # fmt: skip
def delete_alert(org_id: uuid.UUID, alert_id: uuid.UUID, access: Access):
    service.remove(service.load_alert(access, alert_id), access.account.id)


@bp.post("/alerts/<uuid:alert_id>/mute")
@operation(
    "Mute an alert for an hour, a day, a week or until unmuted: still checked, no mail",
    tag=TAG,
    body=MuteIn,
    response=AlertOut,
    errors=WRITE_ERRORS,
    action="alert.write",
)
def mute_alert(org_id: uuid.UUID, alert_id: uuid.UUID, access: Access, body: MuteIn):
    alert = service.load_alert(access, alert_id)
    service.mute(alert, body.period)
    return service.describe(alert)


@bp.post("/alerts/<uuid:alert_id>/unmute")
@operation("Unmute an alert", tag=TAG, response=AlertOut, errors=WRITE_ERRORS,
           action="alert.write")  # fmt: skip
def unmute_alert(org_id: uuid.UUID, alert_id: uuid.UUID, access: Access):
    alert = service.load_alert(access, alert_id)
    service.unmute(alert)
    return service.describe(alert)
