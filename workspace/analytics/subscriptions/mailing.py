"""One subscription's mail, as its recipient sees the dashboard now
(docs/delivery.md#what-the-mail-holds): every widget's headline number or top rows with
its drill-down link (absolute, from ``BASE_URL``), a plain-text part saying the same,
the dashboard's PDF from the export's own renderer, and a signed unsubscribe link.

The recipient's access is read here, when the mail is made: a member removed from the
org, deactivated, or no longer able to see the dashboard raises the gate's
``NotFoundError`` and gets nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app, render_template
from itsdangerous import BadSignature, URLSafeSerializer

from workspace.analytics.dashboards import export, limits
from workspace.analytics.dashboards.models import Dashboard
from workspace.analytics.dashboards.present import WidgetView, present
from workspace.analytics.dashboards.query import DashboardQuery, specs
from workspace.analytics.dashboards.ranges import DateRange
from workspace.analytics.dashboards.service import load_dashboard
from workspace.analytics.subscriptions.models import Subscription
from workspace.core.models import Account
from workspace.delivery.links import absolute, base_url, link_context
from workspace.delivery.mail import Attachment
from workspace.errors import ServiceError
from workspace.security.permissions import authorize_route, org_access

#: Rows of a table or chart shown in the mail; the PDF and the link have the rest.
TOP_ROWS = 5
_SALT = "workspace.dashboard-subscription.unsubscribe"


# -- the unsubscribe link ------------------------------------------------------------------


def _signer() -> URLSafeSerializer:
    # No expiry on purpose: a mail read weeks later must still unsubscribe. The token
    # names one subscription and does nothing once it is gone.
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def unsubscribe_token(subscription: Subscription) -> str:
    return _signer().dumps(str(subscription.id))


def token_subscription_id(token: str) -> str:
    """The subscription a token names; a tampered or foreign token is a 400 that says
    nothing more."""
    try:
        return str(_signer().loads(token))
    except BadSignature as exc:
        raise ServiceError("This unsubscribe link is not valid.") from exc


def unsubscribe_url(subscription: Subscription) -> str:
    return f"{base_url()}/subscriptions/unsubscribe/{unsubscribe_token(subscription)}"


# -- the mail ------------------------------------------------------------------------


@dataclass
class Line:
    """One widget as the mail summarizes it."""

    title: str
    kind: str
    total: int
    href: str | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    more: int = 0
    error: str | None = None


@dataclass
class Mail:
    subject: str
    text: str
    html: str
    attachments: list[Attachment]
    headers: dict[str, str]


def summarize(view: WidgetView) -> Line:
    """A widget's headline number, or its top rows with their links."""
    line = Line(view.title, view.kind, view.total, absolute(view.total_href), error=view.error)
    if view.kind in ("table", "chart"):
        rows = view.rows
        line.rows = [
            {"label": r["label"], "value": r.get("value", 0), "href": absolute(r.get("href"))}
            for r in rows[:TOP_ROWS]
        ]
        line.more = max(0, len(rows) - TOP_ROWS)
    return line


def _pdf(dashboard: Dashboard, views: list[WidgetView], view_filter: str | None) -> Attachment:
    """The export's own PDF (``export.render_pdf``), or a ServiceError saying why not."""
    limits.check_exportable(dashboard)
    export.require_pdf()
    pdf = export.render_pdf(dashboard, views, view_filter)
    return (export.attachment_filename(dashboard.name, "pdf"), pdf, "application/pdf")


def compose(subscription: Subscription, recipient: Account, *, with_pdf: bool = True) -> Mail:
    """The mail for ``recipient`` as they see the dashboard now: their access
    (``NotFoundError`` when they lost it), the subscription's PQL on top of the
    dashboard's, ``currentUser()`` the recipient."""
    access = authorize_route(org_access(subscription.org_id, recipient), "dashboard.read", {})
    dashboard = load_dashboard(access, subscription.dashboard_id)
    query = DashboardQuery(
        access.org,
        recipient.id,
        dashboard.pql_filter,
        subscription.pql_filter,
        dashboard_range=DateRange.of(dashboard),
    )
    with link_context():
        results = query.link(query.results(specs(dashboard)))
    views = [present(result) for result in results]
    lines = [summarize(view) for view in views]
    attachments, pdf_note = [], None
    if with_pdf:
        try:
            attachments.append(_pdf(dashboard, views, subscription.pql_filter))
        except ServiceError as exc:  # no Chromium, too many widgets: the summary still goes
            pdf_note = f"No PDF attached: {exc.message}"
    dashboard_url = f"{base_url()}/o/{access.org.slug}/dashboards/{dashboard.id}"
    leave = unsubscribe_url(subscription)
    context = {
        "dashboard": dashboard,
        "org": access.org,
        "recipient": recipient,
        "subscription": subscription,
        "lines": lines,
        "dashboard_url": dashboard_url,
        "unsubscribe_url": leave,
        "pdf_note": pdf_note,
    }
    return Mail(
        subject=f"{dashboard.name} ({access.org.name})"[:200],
        text=render_template("subscriptions/mail.txt", **context),
        html=render_template("subscriptions/mail.html", **context),
        attachments=attachments,
        headers={
            # RFC 2369 and RFC 8058: the mail client's own one-click unsubscribe.
            "List-Unsubscribe": f"<{leave}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
