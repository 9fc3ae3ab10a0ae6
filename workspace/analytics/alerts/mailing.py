"""An alert's mail (docs/delivery.md#alerts): the figure's value, the condition in
words ("Open urgent bugs is 14, above 10"), the previous value, and the drill-down
link to exactly the tasks counted, absolute from ``BASE_URL``.

Recipients: the creator and the members they named, each checked at send time (still
an active member, still reading the dashboard); whoever is not is skipped, and the
history says so.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from flask import render_template

from workspace.analytics.alerts.access import reader_access
from workspace.analytics.alerts.models import Alert, Condition
from workspace.core.models import Account, Org
from workspace.delivery.links import base_url
from workspace.delivery.mail import MailError, send_mail
from workspace.errors import ForbiddenError, NotFoundError, ServiceError
from workspace.extensions import db

if TYPE_CHECKING:
    from workspace.analytics.alerts.check import Figure


def number(value: float | None) -> str:
    """14, not 14.0; 2.5 as 2.5."""
    if value is None:
        return "none"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def condition_words(alert: Alert) -> str:
    """The condition as the alert list says it: "above 10", "changes by 20%"."""
    if alert.condition == Condition.CHANGE:
        return f"changes by {number(alert.threshold)}% or more"
    return f"{alert.condition} {number(alert.threshold)}"


def headline(alert: Alert, kind: str, value: float, previous: float | None) -> str:
    """ "Open urgent bugs is 14, above 10"; resolved: "... 8, no longer above 10"."""
    start = f"{alert.name} is {number(value)}"
    if alert.condition != Condition.CHANGE:
        limit = f"{alert.condition} {number(alert.threshold)}"
        return f"{start}, {limit}" if kind == "fired" else f"{start}, no longer {limit}"
    if kind != "fired":
        return f"{start}, within {number(alert.threshold)}% of the previous check"
    if not previous:
        return f"{start}, up from 0 (a change of {number(alert.threshold)}% or more)"
    change = (value - previous) / abs(previous) * 100
    way = "up" if change > 0 else "down"
    return f"{start}, {way} {number(round(abs(change), 1))}% (at least {number(alert.threshold)}%)"


def _recipients(alert: Alert, creator: Account) -> tuple[list[Account], list[str]]:
    found, skipped = [creator], []
    for account_id in alert.recipients:
        account = db.session.get(Account, uuid.UUID(account_id))
        try:
            reader_access(alert, account)
        except (NotFoundError, ForbiddenError):
            who = account.email if account is not None else "a removed account"
            skipped.append(f"{who} skipped: no longer reads the dashboard")
            continue
        found.append(account)
    return found, skipped


def send(alert: Alert, kind: str, creator: Account, org: Org, figure: Figure, value: float,
         previous: float | None) -> tuple[list[str], str | None]:  # fmt: skip
    """Mail everyone who may read the figure now, one mail each (no recipient sees the
    others' addresses). Answers the addresses mailed and a note of who was skipped or
    whose delivery failed."""
    recipients, notes = _recipients(alert, creator)
    title = headline(alert, kind, value, previous)
    context = {
        "alert": alert,
        "kind": kind,
        "headline": title,
        "value": number(value),
        "previous": number(previous),
        "condition": condition_words(alert),
        "figure": figure,
        "alert_url": f"{base_url()}/o/{org.slug}/alerts/{alert.id}",
    }
    subject = ("Resolved: " if kind == "resolved" else "Alert: ") + title
    text = render_template("alerts/mail.txt", **context)
    html = render_template("alerts/mail.html", **context)
    sent = []
    for account in recipients:
        try:
            send_mail(account.email, subject[:200], text, html)
        except (MailError, ServiceError) as exc:
            notes.append(f"{account.email} failed: {exc}")
            continue
        sent.append(account.email)
    return sent, "; ".join(notes) or None
