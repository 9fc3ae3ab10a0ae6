"""The inbox, the mention picker's people and a task's subscription in the JSON API
(docs/inbox.md). Every caller, a token holder or an agent included, reads and marks
only their own notifications: another person's notification is a 404, as is one in
another org."""

from __future__ import annotations

import uuid

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.core import mentions, notifications, subscriptions
from workspace.core.models import Task
from workspace.security.permissions import Access
from workspace.tracker.inbox import service
from workspace.tracker.inbox.schemas import (
    InboxOut,
    InboxQuery,
    MarkAllOut,
    MarkReadIn,
    NotificationOut,
    PeopleQuery,
    PersonOut,
    SubscriptionIn,
    SubscriptionOut,
)

bp = api_blueprint("inbox_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.get("/inbox")
@operation(
    "Read your inbox, newest first",
    tag="inbox",
    action="inbox.read",
    query=InboxQuery,
    response=InboxOut,
)
def read_inbox(access: Access, query: InboxQuery):
    """Your notifications in this org: mentions, assignments to you, comments and
    state changes on tasks you follow. ``unread=true`` lists only the unread ones;
    ``unread`` in the answer counts them whatever the query."""
    items, total, unread = service.inbox_page(
        access, unread_only=query.unread, offset=query.offset, limit=query.limit
    )
    return InboxOut(
        items=[NotificationOut.model_validate(i) for i in items],
        total=total,
        unread=unread,
        limit=query.limit,
        offset=query.offset,
    )


@bp.post("/inbox/<uuid:notification_id>/read")
@operation(
    "Mark one of your notifications read (or unread)",
    tag="inbox",
    action="inbox.mark_read",
    body=MarkReadIn,
    body_optional=True,
    response=NotificationOut,
)
def mark_read(access: Access, notification_id: uuid.UUID, body: MarkReadIn):
    """Without a body, marks it read; ``{"read": false}`` marks it unread again. A
    notification that is not yours, or does not exist, is a 404."""
    row = notifications.get_notification(access.org.id, access.account.id, notification_id)
    notifications.mark_read(row, body.read)
    return NotificationOut.model_validate(service.present(access.org, [row])[0])


@bp.post("/inbox/read-all")
@operation(
    "Mark all your notifications read",
    tag="inbox",
    action="inbox.mark_read",
    response=MarkAllOut,
    errors=(401, 403, 404),
)
def mark_all_read(access: Access):
    marked = notifications.mark_all_read(access.org.id, access.account.id)
    return MarkAllOut(marked=marked, unread=0)


@bp.get("/mentions/people")
@operation(
    "Find people to @mention",
    tag="inbox",
    action="task.read",
    query=PeopleQuery,
    response=list[PersonOut],
)
def mention_people(access: Access, query: PeopleQuery):
    """Active members whose name or email address contains ``q`` (at most 8), each
    with the handle that mentions them."""
    return [PersonOut.model_validate(p) for p in mentions.people(access.org.id, query.q)]


@bp.get("/tasks/<uuid:task_id>/subscription")
@operation(
    "Whether you follow a task",
    tag="inbox",
    action="task.read",
    response=SubscriptionOut,
)
def read_subscription(task: Task, access: Access):
    return SubscriptionOut(
        task_id=task.id, subscribed=subscriptions.is_subscribed(task.id, access.account.id)
    )


@bp.put("/tasks/<uuid:task_id>/subscription")
@operation(
    "Follow a task, or stop following it",
    tag="inbox",
    action="task.subscribe",
    body=SubscriptionIn,
    response=SubscriptionOut,
)
def set_subscription(task: Task, access: Access, body: SubscriptionIn):
    """``{"subscribed": false}`` stops comments and state changes of the task from
    reaching your inbox; being assigned or mentioned then no longer subscribes you
    again, though you are still told of the assignment or the mention itself."""
    subscribed = subscriptions.set_subscribed(task, access.account.id, body.subscribed)
    return SubscriptionOut(task_id=task.id, subscribed=subscribed)
