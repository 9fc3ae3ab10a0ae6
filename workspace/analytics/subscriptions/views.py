"""Dashboard subscriptions on the pages (docs/delivery.md#subscriptions): the
dashboard's Subscriptions page (subscribe, the list, "send now", remove after a
confirmation, the send history), and the one-click unsubscribe page a mail links to,
which needs no sign-in."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, url_for

from workspace.analytics.dashboards.service import load_dashboard
from workspace.analytics.subscriptions import service
from workspace.analytics.subscriptions.schemas import (
    SubscriptionForm,
    SubscriptionPageQuery,
)
from workspace.auth.guards import form_again, page, render
from workspace.core.dates import moment
from workspace.core.orgs import WEEKDAYS
from workspace.extensions import csrf, limiter
from workspace.security.permissions import Access
from workspace.transaction import transactional

bp = Blueprint("subscriptions_pages", __name__)
#: The unsubscribe link: no sign-in, no org in the URL.
public = Blueprint("subscriptions_public", __name__)

PATH = "/o/<org>/dashboards/<uuid:dashboard_id>/subscriptions"


def _page(org: str, dashboard_id: uuid.UUID, access: Access, *, errors=None, values=None,
          status: int = 200, recipient: uuid.UUID | None = None):  # fmt: skip
    dashboard = load_dashboard(access, dashboard_id, "dashboard.read")
    subscriptions = service.list_subscriptions(access, dashboard)
    rows = service.describe(subscriptions, access.org)
    # The form holds the subscription a row's Edit chose, else the caller's own.
    wanted = recipient or access.account.id
    loaded = next((r for r in rows if r.account_id == wanted), None)
    histories = {s.id: service.history(s)[:10] for s in subscriptions}
    zone = access.org.zone
    return render(
        "subscriptions/index.html",
        status=status,
        dashboard=dashboard,
        rows=rows,
        loaded=loaded,
        schedule_words=service.schedule_words,
        histories=histories,
        members=service.subscribable(access, dashboard),
        manages=service.may_manage_all(access, dashboard),
        zone=str(zone),
        local=lambda instant: moment(instant, zone, weekday=True),
        weekday_choices=[(i, day.capitalize()) for i, day in enumerate(WEEKDAYS)],
        errors=errors or {},
        values=values or {},
    )


@bp.get(PATH)
@page(action="dashboard.read", form=SubscriptionPageQuery)
def index(org: str, dashboard_id: uuid.UUID, access: Access, form: SubscriptionPageQuery):
    """The schedule form, the subscriptions the caller sees and their sends."""
    return _page(org, dashboard_id, access, recipient=form.recipient)


@bp.post(PATH)
@page(
    action="dashboard.subscribe",
    form=SubscriptionForm,
    invalid=form_again(_page, "subscribe"),
)
def subscribe(org: str, dashboard_id: uuid.UUID, form: SubscriptionForm, access: Access):
    dashboard = load_dashboard(access, dashboard_id)
    subscription, created = service.subscribe(
        access, dashboard, form, replace_unseen=False, shown_for=form.loaded_for
    )
    whose = "Your" if subscription.account_id == access.account.id else "The"
    when = service.schedule_words(subscription)
    if created:
        flash(f"Subscribed: {when}. The first mail goes out at the next one.", "success")
    else:
        flash(f"{whose} subscription changed: {when} from now on.", "success")
    return redirect(url_for(".index", org=org, dashboard_id=dashboard_id), 303)


@bp.post(f"{PATH}/<uuid:subscription_id>/send")
@page(action="dashboard.subscribe")
def send_now(org: str, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access):
    dashboard = load_dashboard(access, dashboard_id)
    service.send_now(service.load_subscription(access, dashboard, subscription_id))
    flash("The mail is on its way; its send shows below.", "success")
    return redirect(url_for(".index", org=org, dashboard_id=dashboard_id), 303)


@bp.get(f"{PATH}/<uuid:subscription_id>/remove")
@page(action="dashboard.subscribe")
def confirm_remove(org: str, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access):
    """Removing asks first, on a page of its own."""
    dashboard = load_dashboard(access, dashboard_id)
    subscription = service.load_subscription(access, dashboard, subscription_id)
    (row,) = service.describe([subscription], access.org)
    return render("subscriptions/remove.html", dashboard=dashboard, row=row)


@bp.post(f"{PATH}/<uuid:subscription_id>/remove")
@page(action="dashboard.subscribe")
def remove(org: str, dashboard_id: uuid.UUID, subscription_id: uuid.UUID, access: Access):
    dashboard = load_dashboard(access, dashboard_id)
    service.remove(service.load_subscription(access, dashboard, subscription_id), access.account.id)
    flash("The subscription is removed.", "success")
    return redirect(url_for(".index", org=org, dashboard_id=dashboard_id), 303)


@public.get("/subscriptions/unsubscribe/<token>")
@limiter.limit("60 per minute")
@transactional
def unsubscribe_page(token: str):
    """What the mail's link opens: one button. A GET changes nothing, because mail
    scanners open links before the reader does."""
    subscription = service.by_token(token)
    return render("subscriptions/unsubscribe.html", token=token, gone=subscription is None,
                  done=False)  # fmt: skip


@public.post("/subscriptions/unsubscribe/<token>")
@csrf.exempt
@limiter.limit("60 per minute")
@transactional
def unsubscribe(token: str):
    """The button, and the mail client's one-click POST (RFC 8058), which carries no
    CSRF token: the signed link is the proof. Unsubscribing twice is fine."""
    subscription = service.by_token(token)
    if subscription is not None:
        service.remove(subscription, None)
    return render("subscriptions/unsubscribe.html", token=token, gone=True, done=True)
