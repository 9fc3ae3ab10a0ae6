"""Alerts on the pages (docs/delivery.md#alerts): "Create alert" for a dashboard's
widget, the Alerts page (your alerts: state, last value, mute and unmute, remove after
a confirmation) and one alert's history."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, url_for

from workspace.analytics.alerts import mailing, service
from workspace.analytics.alerts.schemas import AlertFields, MuteIn
from workspace.analytics.dashboards.service import load_dashboard
from workspace.auth.guards import form_again, page, render
from workspace.core.dates import moment
from workspace.inputs import InputModel
from workspace.security.permissions import Access

bp = Blueprint("alerts_pages", __name__)
PATH = "/o/<org>/alerts"
NEW = "/o/<org>/dashboards/<uuid:dashboard_id>/alerts/new"
CONDITIONS = [("above", "is above"), ("below", "is below"), ("change", "changes by (%)")]
MUTES = [("hour", "1 hour"), ("day", "1 day"), ("week", "1 week"), ("forever", "Until unmuted")]


class NewAlertQuery(InputModel):
    """Which widget the form starts on (the widget menu's link names it)."""

    widget_id: uuid.UUID | None = None


def _helpers(access: Access) -> dict:
    zone = access.org.zone
    return {
        "local": lambda instant: moment(instant, zone, weekday=True),
        "number": mailing.number,
        "condition_words": mailing.condition_words,
        "mutes": MUTES,
        "zone": str(zone),
    }


def _form(org: str, dashboard_id: uuid.UUID, access: Access, form: NewAlertQuery | None = None,
          *, errors=None, values=None, status: int = 200, alert=None):  # fmt: skip
    """The alert form: a new alert on the dashboard, or ``alert`` to change."""
    dashboard = load_dashboard(access, dashboard_id, "dashboard.read")
    widgets = [(w.id, w.title) for w in dashboard.widgets]
    return render(
        "alerts/new.html",
        status=status,
        dashboard=dashboard,
        alert=alert,
        widgets=widgets,
        widget_id=form.widget_id if form is not None else None,
        conditions=CONDITIONS,
        members=service.members(access, dashboard),
        errors=errors or {},
        values=values or {},
    )


def _edit_form(org: str, alert_id: uuid.UUID, access: Access, *, errors=None, values=None,
               status: int = 200):  # fmt: skip
    alert = service.load_alert(access, alert_id)
    return _form(org, alert.dashboard_id, access, errors=errors, values=values, status=status,
                 alert=alert)  # fmt: skip


@bp.get(NEW)
@page(action="alert.write", form=NewAlertQuery)
def new(org: str, dashboard_id: uuid.UUID, access: Access, form: NewAlertQuery):
    """The form for an alert on one of the dashboard's widgets."""
    return _form(org, dashboard_id, access, form)


@bp.post(NEW)
@page(action="alert.write", form=AlertFields, checkboxes=("notify_resolved",),
      invalid=form_again(_form, "alert", url_ids=True))  # fmt: skip
def create(org: str, dashboard_id: uuid.UUID, form: AlertFields, access: Access):
    alert = service.create(access, dashboard_id, form)
    flash(f"Alert “{alert.name}” created: the next check sets its first value.", "success")
    return redirect(url_for(".index", org=org), 303)


@bp.get(f"{PATH}/<uuid:alert_id>/edit")
@page(action="alert.write")
def edit(org: str, alert_id: uuid.UUID, access: Access):
    """The alert's form, filled in."""
    return _edit_form(org, alert_id, access)


@bp.post(f"{PATH}/<uuid:alert_id>/edit")
@page(action="alert.write", form=AlertFields, checkboxes=("notify_resolved",),
      invalid=form_again(_edit_form, "alert", url_ids=True))  # fmt: skip
def update(org: str, alert_id: uuid.UUID, form: AlertFields, access: Access):
    alert = service.update(access, service.load_alert(access, alert_id), form)
    flash(f"Alert “{alert.name}” saved: the next check uses it.", "success")
    return redirect(url_for(".index", org=org), 303)


@bp.get(PATH)
@page(action="alert.read")
def index(org: str, access: Access):
    """Your alerts, their state and last value, mute and unmute."""
    return render("alerts/index.html", alerts=service.my_alerts(access), **_helpers(access))


@bp.get(f"{PATH}/<uuid:alert_id>")
@page(action="alert.read")
def show(org: str, alert_id: uuid.UUID, access: Access):
    """One alert and its history."""
    alert = service.load_alert(access, alert_id)
    return render("alerts/show.html", alert=alert, events=service.events(alert),
                  **_helpers(access))  # fmt: skip


@bp.post(f"{PATH}/<uuid:alert_id>/mute")
@page(action="alert.write", form=MuteIn)
def mute(org: str, alert_id: uuid.UUID, form: MuteIn, access: Access):
    alert = service.load_alert(access, alert_id)
    service.mute(alert, form.period)
    flash(f"“{alert.name}” is muted: still checked, no mail.", "success")
    return redirect(url_for(".index", org=org), 303)


@bp.post(f"{PATH}/<uuid:alert_id>/unmute")
@page(action="alert.write")
def unmute(org: str, alert_id: uuid.UUID, access: Access):
    alert = service.load_alert(access, alert_id)
    service.unmute(alert)
    flash(f"“{alert.name}” is unmuted.", "success")
    return redirect(url_for(".index", org=org), 303)


@bp.get(f"{PATH}/<uuid:alert_id>/remove")
@page(action="alert.write")
def confirm_remove(org: str, alert_id: uuid.UUID, access: Access):
    """Removing asks first, on a page of its own."""
    return render("alerts/remove.html", alert=service.load_alert(access, alert_id))


@bp.post(f"{PATH}/<uuid:alert_id>/remove")
@page(action="alert.write")
def remove(org: str, alert_id: uuid.UUID, access: Access):
    service.remove(service.load_alert(access, alert_id), access.account.id)
    flash("The alert and its history are deleted.", "success")
    return redirect(url_for(".index", org=org), 303)
