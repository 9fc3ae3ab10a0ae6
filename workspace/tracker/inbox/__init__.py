"""My work and the inbox (docs/inbox.md): the pages, their JSON API, and the
template helpers every page's navigation and every due date use. Registered by the
app factory's CAPABILITIES; the writes are core's (notifications, subscriptions)."""

from __future__ import annotations

from flask import Flask, g

from workspace.core import notifications, subscriptions, task_lists
from workspace.core.models import Task
from workspace.tracker.inbox import api, service, views


def _unread(access) -> int:
    """The navigation's count: the signed-in member's unread notifications here."""
    if access is None:
        return 0
    return notifications.unread_count(access.org.id, access.account.id)


def _overdue_days(task: Task) -> int:
    """Days past due by the org's calendar (0: not overdue), for any due date shown."""
    access = g.get("access")
    return service.overdue_days(task, task_lists.today_in(access.org.timezone if access else "UTC"))


def _subscribed(task: Task) -> bool:
    access = g.get("access")
    return access is not None and subscriptions.is_subscribed(task.id, access.account.id)


def init_app(app: Flask) -> None:
    """Register the pages, the API and the template helpers."""
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.jinja_env.globals.update(
        inbox_unread=_unread, overdue_days=_overdue_days, task_subscribed=_subscribed
    )
