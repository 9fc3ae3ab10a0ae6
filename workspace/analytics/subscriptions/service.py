"""Subscribing to a dashboard, the list, "send now" and the due run
(docs/delivery.md#subscriptions). Services flush; the request or the job commits.

Who: whoever reads a dashboard subscribes themselves; whoever may edit it (its owner,
the ``dashboard.edit`` rule) subscribes other active members of the org who can read
it, and sees and manages every subscription of the dashboard. Anyone else sees only
their own. An outsider, another org's member or an agent is "no such member" (404).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from flask import current_app
from sqlalchemy import func, select, update

from workspace.analytics.dashboards.models import Dashboard, Visibility
from workspace.analytics.dashboards.service import DEPENDENTS, check_pql
from workspace.analytics.subscriptions import schedule
from workspace.analytics.subscriptions.models import SendStatus, Subscription, SubscriptionSend
from workspace.analytics.subscriptions.schemas import (
    DashboardSubscriptionDetail,
    DashboardSubscriptionIn,
    DashboardSubscriptionOut,
    SubscriptionSendOut,
)
from workspace.core.events import record_event
from workspace.core.models import Account, AccountKind, Org, OrgMember
from workspace.core.orgs import WEEKDAYS, active_membership
from workspace.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.jobs import service as jobs
from workspace.security.permissions import Access, can_object
from workspace.types import utcnow

SEND_KIND = "subscriptions.send"
#: Caps (docs/delivery.md#limits), overridable in the config.
MAX_PER_DASHBOARD = 50
MAX_PER_MEMBER = 20
#: Sends shown per subscription.
HISTORY = 50
#: Due subscriptions taken per run of the due job; the rest wait a minute.
DUE_BATCH = 200


def _cap(name: str, default: int) -> int:
    return int(current_app.config.get(name, default))


def may_manage_all(access: Access, dashboard: Dashboard) -> bool:
    """The dashboard's editor manages everyone's subscriptions to it."""
    return can_object(access, dashboard, "dashboard.edit")


def _recipient(access: Access, dashboard: Dashboard, account_id: uuid.UUID | None) -> Account:
    if account_id is None or account_id == access.account.id:
        return access.account
    if not may_manage_all(access, dashboard):
        raise ForbiddenError("Only the dashboard's owner can subscribe other members.")
    account = db.session.get(Account, account_id)
    if account is None or account.is_agent or active_membership(access.org.id, account.id) is None:
        raise NotFoundError("No such member in this organization.", field="account_id")
    if dashboard.visibility != Visibility.WORKSPACE and dashboard.owner_id != account.id:
        raise ServiceError(
            "This member cannot see a private dashboard: publish it to the workspace first.",
            field="account_id",
        )
    return account


def _check_schedule(data: DashboardSubscriptionIn) -> tuple[int | None, int | None]:
    if data.frequency == "weekly":
        if data.weekday is None:
            raise ServiceError("Choose a weekday (0 Monday to 6 Sunday).", field="weekday")
        return data.weekday, None
    if data.frequency == "monthly":
        if data.day_of_month is None:
            raise ServiceError("Choose a day of the month (1 to 31).", field="day_of_month")
        return None, data.day_of_month
    return None, None


def _check_caps(dashboard: Dashboard, account_id: uuid.UUID) -> None:
    on_dashboard = db.session.scalar(
        select(func.count()).where(Subscription.dashboard_id == dashboard.id)
    )
    if on_dashboard >= _cap("SUBSCRIPTIONS_MAX_PER_DASHBOARD", MAX_PER_DASHBOARD):
        raise ConflictError(f"This dashboard has {on_dashboard} subscriptions, the most it may.")
    of_member = db.session.scalar(select(func.count()).where(Subscription.account_id == account_id))
    if of_member >= _cap("SUBSCRIPTIONS_MAX_PER_MEMBER", MAX_PER_MEMBER):
        raise ConflictError(f"This member has {of_member} subscriptions, the most one may.")


def next_send_at(org: Org, subscription: Subscription, after: datetime) -> datetime:
    return schedule.next_send(
        after,
        org.zone,
        subscription.frequency,
        subscription.hour,
        subscription.weekday,
        subscription.day_of_month,
    )


def subscribe(
    access: Access,
    dashboard: Dashboard,
    data: DashboardSubscriptionIn,
    *,
    replace_unseen: bool = True,
    shown_for: uuid.UUID | None = None,
) -> tuple[Subscription, bool]:
    """Subscribe the caller (or, for the dashboard's editor, ``data.account_id``); a
    second subscription of the same member to the dashboard changes the first (and
    resumes it when paused). Checks the PQL with ``currentUser()`` the recipient.
    The API replaces an existing one as documented; the page passes ``replace_unseen``
    False and whose subscription its form showed (``shown_for``), and another member's
    subscription the caller was not shown is refused, not replaced unseen (the form
    always shows the caller's own).
    Returns the subscription and whether it is new (False: an existing one changed)."""
    recipient = _recipient(access, dashboard, data.account_id)
    weekday, day_of_month = _check_schedule(data)
    pql = check_pql(data.pql_filter, access.org, recipient.id, "pql_filter")
    subscription = subscription_of(dashboard, recipient.id)
    unseen = shown_for != recipient.id and recipient.id != access.account.id
    if subscription is not None and not replace_unseen and unseen:
        raise ConflictError(
            f"{recipient.name} already gets this dashboard {schedule_words(subscription)}"
            f"{' with a filter' if subscription.pql_filter else ''}. To change it, choose "
            "Edit on their subscription below, where the form shows what it is now.",
            field="account_id",
        )
    created = subscription is None
    if subscription is None:
        _check_caps(dashboard, recipient.id)
        subscription = Subscription(
            org_id=access.org.id,
            dashboard_id=dashboard.id,
            account_id=recipient.id,
            created_by=access.account.id,
        )
        db.session.add(subscription)
    subscription.frequency, subscription.hour = data.frequency, data.hour
    subscription.weekday, subscription.day_of_month = weekday, day_of_month
    subscription.pql_filter = pql
    subscription.paused_reason = None
    subscription.next_send_at = next_send_at(access.org, subscription, utcnow())
    db.session.flush()
    record_event(access.org.id, "dashboard.subscribed", actor_id=access.account.id,
                 subject=str(dashboard.id), account_id=str(recipient.id))  # fmt: skip
    return subscription, created


def schedule_words(subscription: Subscription | DashboardSubscriptionOut) -> str:
    """ "daily at 09:00", "weekly on Monday at 08:00", "monthly on day 3 at 08:00"."""
    on = ""
    if subscription.frequency == "weekly":
        on = f" on {WEEKDAYS[subscription.weekday or 0].capitalize()}"
    elif subscription.frequency == "monthly":
        on = f" on day {subscription.day_of_month}"
    return f"{subscription.frequency}{on} at {subscription.hour:02d}:00"


def subscription_of(dashboard: Dashboard, account_id: uuid.UUID) -> Subscription | None:
    """The member's subscription to the dashboard (each has at most one)."""
    return db.session.scalar(
        select(Subscription).where(
            Subscription.dashboard_id == dashboard.id, Subscription.account_id == account_id
        )
    )


def list_subscriptions(access: Access, dashboard: Dashboard) -> list[Subscription]:
    """The dashboard's editor: every subscription; anyone else: their own."""
    statement = select(Subscription).where(Subscription.dashboard_id == dashboard.id)
    if not may_manage_all(access, dashboard):
        statement = statement.where(Subscription.account_id == access.account.id)
    return list(db.session.scalars(statement.order_by(Subscription.created_at)))


def load_subscription(
    access: Access, dashboard: Dashboard, subscription_id: uuid.UUID
) -> Subscription:
    """One subscription of ``dashboard`` the caller may see (their own, or any for the
    dashboard's editor); anything else is a 404."""
    subscription = db.session.get(Subscription, subscription_id)
    if (
        subscription is None
        or subscription.dashboard_id != dashboard.id
        or (subscription.account_id != access.account.id and not may_manage_all(access, dashboard))
    ):
        raise NotFoundError("No such subscription.")
    return subscription


def history(subscription: Subscription) -> list[SubscriptionSend]:
    return list(
        db.session.scalars(
            select(SubscriptionSend)
            .where(SubscriptionSend.subscription_id == subscription.id)
            .order_by(SubscriptionSend.created_at.desc())
            .limit(HISTORY)
        )
    )


def remove(subscription: Subscription, actor_id: uuid.UUID | None) -> None:
    """End a subscription and its history (the recipient, the dashboard's editor, or
    the unsubscribe link)."""
    record_event(subscription.org_id, "dashboard.unsubscribed", actor_id=actor_id,
                 subject=str(subscription.dashboard_id),
                 account_id=str(subscription.account_id))  # fmt: skip
    db.session.delete(subscription)
    db.session.flush()


def _queue_send(subscription: Subscription, trigger: str, due_at: datetime) -> SubscriptionSend:
    send = SubscriptionSend(
        subscription_id=subscription.id, trigger=trigger, due_at=due_at, status=SendStatus.QUEUED
    )
    db.session.add(send)
    db.session.flush()
    job = jobs.enqueue(
        SEND_KIND,
        org_id=subscription.org_id,
        account_id=subscription.account_id,
        args={"send_id": str(send.id)},
    )
    send.job_id = job.id
    return send


def send_now(subscription: Subscription) -> SubscriptionSend:
    """One send at once, beside the schedule. One at a time: while one is on its way,
    another is a 409."""
    waiting = db.session.scalar(
        select(func.count()).where(
            SubscriptionSend.subscription_id == subscription.id,
            SubscriptionSend.status.in_((SendStatus.QUEUED, SendStatus.RETRYING)),
        )
    )
    if waiting:
        raise ConflictError("A send of this subscription is already on its way.")
    if subscription.paused_reason is not None:
        raise ConflictError(f"This subscription is paused ({subscription.paused_reason}).")
    return _queue_send(subscription, "now", utcnow())


def run_due(now: datetime) -> int:
    """Queue one send for every subscription due at ``now`` and move its next send on,
    in the caller's transaction. The move is a compare-and-set on ``next_send_at``, so
    of two runs that read the same due row only one queues its send. A subscription
    overdue by days (no scheduler ran) sends once and moves past ``now``."""
    due = db.session.execute(
        select(Subscription.id, Subscription.next_send_at)
        .where(Subscription.next_send_at <= now, Subscription.paused_reason.is_(None))
        .order_by(Subscription.next_send_at)
        .limit(DUE_BATCH)
    ).all()
    queued = 0
    for subscription_id, due_at in due:
        subscription = db.session.get(Subscription, subscription_id)
        org = db.session.get(Org, subscription.org_id)
        following = next_send_at(org, subscription, max(now, due_at))
        moved = db.session.execute(
            update(Subscription)
            .where(Subscription.id == subscription_id, Subscription.next_send_at == due_at)
            .values(next_send_at=following)
            .execution_options(synchronize_session=False)
        )
        if moved.rowcount != 1:
            continue  # another run took it
        db.session.refresh(subscription)
        _queue_send(subscription, "schedule", due_at)
        queued += 1
    return queued


def pause(subscription: Subscription, reason: str) -> None:
    """Stop the schedule (the recipient lost the dashboard); subscribing again resumes."""
    subscription.paused_reason = reason
    subscription.next_send_at = None


def describe(subscriptions: list[Subscription], org: Org) -> list[DashboardSubscriptionOut]:
    """The subscriptions as the API and the page show them: the recipients' names read
    in one query."""
    ids = {s.account_id for s in subscriptions}
    names = (
        dict(db.session.execute(select(Account.id, Account.name).where(Account.id.in_(ids))).all())
        if ids
        else {}
    )
    return [
        DashboardSubscriptionOut.model_validate(
            {
                **{
                    k: getattr(s, k) for k in DashboardSubscriptionOut.model_fields if hasattr(s, k)
                },
                "recipient": names.get(s.account_id, ""),
                "timezone": org.timezone or "UTC",
            }
        )
        for s in subscriptions
    ]


def detail(subscription: Subscription, org: Org) -> DashboardSubscriptionDetail:
    (out,) = describe([subscription], org)
    sends = [SubscriptionSendOut.model_validate(send) for send in history(subscription)]
    return DashboardSubscriptionDetail(**out.model_dump(), sends=sends)


def by_token(token: str) -> Subscription | None:
    """The subscription an unsubscribe link names (None when it is gone already); a
    tampered link is a 400."""
    from workspace.analytics.subscriptions.mailing import token_subscription_id

    try:
        subscription_id = uuid.UUID(token_subscription_id(token))
    except ValueError as exc:
        raise ServiceError("This unsubscribe link is not valid.") from exc
    return db.session.get(Subscription, subscription_id)


def subscribable(access: Access, dashboard: Dashboard) -> list[tuple[uuid.UUID, str]]:
    """Whom the caller may subscribe: everyone active in the org who reads the
    dashboard, for its editor (a private one: its owner alone); themselves otherwise."""
    if not may_manage_all(access, dashboard):
        return [(access.account.id, access.account.name)]
    statement = (
        select(Account.id, Account.name)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(OrgMember.org_id == access.org.id, OrgMember.active.is_(True))
        .where(Account.kind != AccountKind.AGENT)
        .order_by(Account.name)
    )
    if dashboard.visibility != Visibility.WORKSPACE:
        statement = statement.where(Account.id == dashboard.owner_id)
    return [(row.id, row.name) for row in db.session.execute(statement)]


DEPENDENTS.append((("email subscription", "email subscriptions"), Subscription))
