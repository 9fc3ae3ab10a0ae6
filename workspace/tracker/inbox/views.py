"""The Inbox and My work pages, and the task page's Subscribe button (docs/inbox.md).

Marking read works with and without JavaScript: the forms post and the page comes
back (303); with HTMX the item (or the whole list) is swapped and the navigation's
unread count follows out of band.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, redirect, render_template, url_for

from workspace.auth.guards import page
from workspace.core import notifications, subscriptions, task_lists
from workspace.core.models import Task
from workspace.extensions import htmx
from workspace.security.permissions import Access
from workspace.tracker.inbox import service
from workspace.tracker.inbox.schemas import InboxAction, InboxQuery, MyWorkQuery, SubscriptionIn

bp = Blueprint("inbox_pages", __name__)

INBOX = "/o/<org>/inbox"


@bp.after_request
def _vary(response):
    response.vary.add("HX-Request")
    return response


def _inbox_context(access: Access, query: InboxQuery) -> dict:
    items, total, unread = service.inbox_page(
        access, unread_only=query.unread, offset=query.offset, limit=query.limit
    )
    return {
        "items": items,
        "total": total,
        "unread": unread,
        "query": query,
        "nav_active": "inbox",
    }


@bp.get(INBOX)
@page(action="inbox.read", form=InboxQuery)
def inbox(access: Access, form: InboxQuery):
    """The caller's notifications in this org, newest first (``?unread=true``: only
    the unread ones), 50 at a time."""
    return render_template("tracker/inbox.html", **_inbox_context(access, form))


def _back_to_inbox(org: str, unread: bool):
    """Where a form without JavaScript returns: the inbox as it was filtered."""
    args = {"unread": "true"} if unread else {}
    return redirect(url_for("inbox_pages.inbox", org=org, **args), 303)


@bp.post(INBOX + "/<uuid:notification_id>/read")
@page(action="inbox.mark_read", form=InboxAction)
def mark_read(org: str, notification_id: uuid.UUID, form: InboxAction, access: Access):
    """Mark one notification read (``read=false``: unread again)."""
    row = notifications.get_notification(access.org.id, access.account.id, notification_id)
    notifications.mark_read(row, form.read)
    if htmx:
        item = service.present(access.org, [row])[0]
        unread = notifications.unread_count(access.org.id, access.account.id)
        return render_template("tracker/_inbox_item.html", item=item, unread=unread, oob=True)
    return _back_to_inbox(org, form.unread)


@bp.post(INBOX + "/read-all")
@page(action="inbox.mark_read", form=InboxAction)
def mark_all_read(org: str, form: InboxAction, access: Access):
    """Mark every unread notification read."""
    notifications.mark_all_read(access.org.id, access.account.id)
    if htmx:
        context = _inbox_context(access, InboxQuery(unread=form.unread))
        return render_template("tracker/_inbox_list.html", oob=True, **context)
    return _back_to_inbox(org, form.unread)


@bp.get("/o/<org>/my-work")
@page(action="inbox.read", form=MyWorkQuery)
def my_work(access: Access, form: MyWorkQuery):
    """The caller's open tasks: assigned to them, created by them, or subscribed,
    by due date then priority (``?section=``)."""
    work = service.my_work(access, form.section)
    today = task_lists.today_in(access.org.timezone)
    return render_template(
        "tracker/my_work.html",
        work=work,
        sections=service.SECTIONS,
        today=today,
        nav_active="my_work",
    )


@bp.post("/o/<org>/tasks/<task_key>/subscription")
@page(action="task.subscribe", form=SubscriptionIn)
def subscription(org: str, task: Task, form: SubscriptionIn, access: Access):
    """Subscribe to the task (``subscribed=true``) or stop (``false``)."""
    subscriptions.set_subscribed(task, access.account.id, form.subscribed)
    if htmx:
        return render_template(
            "tracker/task/_subscribe.html", task=task, subscribed=form.subscribed, changed=True
        )
    return redirect(url_for("task_pages.task", org=org, task_key=task.key), 303)
