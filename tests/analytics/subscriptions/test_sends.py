"""Subscriptions end to end through the API and the outbox (no SMTP server set): each
recipient gets the dashboard as they see it (``currentUser()`` is the recipient),
drill links are absolute, the due run queues each due subscription once and moves it
on, a removed member gets nothing more, and the unsubscribe link works without a
session and refuses a tampered token."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import func, select, update

from tests.analytics.subscriptions.conftest import (
    Team,
    add_widget,
    outbox_to,
    run_sends,
    subscribe,
    subscription,
)
from workspace.analytics.subscriptions import mailing, service
from workspace.analytics.subscriptions.models import Subscription, SubscriptionSend
from workspace.auth.membership import deactivate_member
from workspace.core.models import Account, Org, OrgMember
from workspace.extensions import db
from workspace.jobs.schedule import fire_due
from workspace.types import utcnow

MINE = "assignee = currentUser()"


def _send_now(client, team: Team, who, subscription_id) -> None:
    answer = client.post(team.url(f"/subscriptions/{subscription_id}/send"), headers=who.headers)
    assert answer.status_code == 202, answer.get_json()
    assert answer.get_json()["status"] == "queued"


def test_each_recipient_gets_their_own_numbers(app, client, team: Team):
    world = team.world
    own = subscribe(client, team, world.acme, pql_filter=MINE)
    assert own.status_code == 201, own.get_json()
    assert own.get_json()["timezone"] == "Europe/Berlin"
    # The owner subscribes Mia; the filter's currentUser() is Mia when her mail is made.
    mias = subscribe(
        client, team, world.acme, pql_filter=MINE, account_id=str(world.member.owner_id)
    )
    assert mias.status_code == 201, mias.get_json()
    assert mias.get_json()["recipient"] != own.get_json()["recipient"]
    for body in (own.get_json(), mias.get_json()):
        _send_now(client, team, world.acme, body["id"])
    assert run_sends(app) == ["sent", "sent"]

    (owners,) = outbox_to(app, world.acme.owner_email)
    (hers,) = outbox_to(app, world.member.owner_email)
    number = re.compile(r"Open work: (\d+)")
    assert number.search(owners.text).group(1) == "3"
    assert number.search(hers.text).group(1) == "1"
    assert owners.subject.startswith("Team review")
    assert "team-review.pdf (application/pdf" in owners.attachments
    # Every link in the HTML part is absolute, under BASE_URL; the drill links name
    # the recipient's filter and the widget's figure.
    base = app.config["BASE_URL"]
    links = re.findall(r'href="([^"]+)"', owners.html)
    assert links and all(link.startswith(base + "/") for link in links)
    drills = [link for link in links if "pql=" in link]
    assert drills
    pql = parse_qs(urlsplit(drills[0].replace("&amp;", "&")).query)["pql"][0]
    assert "currentUser()" in pql
    assert "/subscriptions/unsubscribe/" in owners.text


def test_a_bad_filter_and_bad_input_are_refused(client, team: Team):
    world = team.world
    bad = subscribe(client, team, world.member, pql_filter="assignee = = x")
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "pql_filter"
    cases = [
        ({"hour": 24}, "hour"),
        ({"hour": "eight"}, "hour"),
        ({"frequency": "hourly"}, "frequency"),
        ({"frequency": "weekly", "weekday": 7}, "weekday"),
        ({"frequency": "monthly", "day_of_month": 0}, "day_of_month"),
        ({"pql_filter": "x" * 2001}, "pql_filter"),
        ({"account_id": "not-an-id"}, "account_id"),
    ]
    for body, field in cases:
        answer = subscribe(client, team, world.member, **body)
        assert answer.status_code == 400, (body, answer.get_json())
        assert field in {e["field"] for e in answer.get_json()["errors"]}, answer.get_json()
    weekly = subscribe(client, team, world.member, frequency="weekly")
    assert weekly.status_code == 422 and weekly.get_json()["errors"][0]["field"] == "weekday"
    missing = client.get(
        team.url(f"/subscriptions/{world.acme.owner_id}"), headers=world.acme.headers
    )
    assert missing.status_code == 404


def test_members_subscribe_only_themselves_and_never_outsiders(client, team: Team):
    world = team.world
    other = subscribe(client, team, world.member, account_id=str(world.acme.owner_id))
    assert other.status_code == 403
    stranger = subscribe(client, team, world.acme, account_id=str(world.globex.owner_id))
    assert stranger.status_code == 404
    # Mia's own subscription is hers to see; the owner sees everyone's.
    mine = subscribe(client, team, world.member).get_json()
    subscribe(client, team, world.acme)
    listed = client.get(team.url("/subscriptions"), headers=world.member.headers).get_json()
    assert [s["id"] for s in listed] == [mine["id"]]
    assert len(client.get(team.url("/subscriptions"), headers=world.acme.headers).get_json()) == 2


def test_the_cap_per_dashboard(app, client, team: Team):
    app.config["SUBSCRIPTIONS_MAX_PER_DASHBOARD"] = 1
    try:
        assert subscribe(client, team, team.world.acme).status_code == 201
        over = subscribe(client, team, team.world.member)
        assert over.status_code == 409 and "the most it may" in over.get_json()["detail"]
        # Changing one's own subscription is not a new one.
        assert subscribe(client, team, team.world.acme, hour=9).status_code == 201
    finally:
        del app.config["SUBSCRIPTIONS_MAX_PER_DASHBOARD"]


def test_the_due_run_sends_each_subscription_once_and_moves_it_on(app, client, team: Team):
    body = subscribe(client, team, team.world.member, hour=7).get_json()
    with app.app_context():
        # Due a minute ago (as if the hour had just passed).
        due_at = utcnow().replace(microsecond=0) - timedelta(minutes=1)
        db.session.execute(update(Subscription).values(next_send_at=due_at))
        db.session.commit()
        now = utcnow()
        # Two schedulers claim the minute: one job; and the due rows move once even
        # when the run is repeated (the compare-and-set on next_send_at).
        assert "subscriptions.due" in fire_due(now, "scheduler-a")
        assert "subscriptions.due" not in fire_due(now, "scheduler-b")
        assert service.run_due(now) == 1
        db.session.commit()
        assert service.run_due(now) == 0
        db.session.commit()
        row = db.session.get(Subscription, uuid.UUID(body["id"]))
        assert row.next_send_at > now
        assert row.next_send_at.hour in (5, 6)  # 07:00 in Berlin, summer or winter
    # The claimed job runs the same due pass: nothing left to queue.
    run_sends(app)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(SubscriptionSend)) == 1
    assert len(outbox_to(app, team.world.member.owner_email)) == 1


def test_a_removed_member_gets_nothing_more(app, client, team: Team):
    world = team.world
    body = subscribe(client, team, world.member).get_json()
    _send_now(client, team, world.member, body["id"])
    with app.app_context():
        member = db.session.scalar(
            select(OrgMember).where(OrgMember.account_id == world.member.owner_id)
        )
        deactivate_member(member, actor_id=world.acme.owner_id)
        db.session.commit()
    assert run_sends(app) == ["skipped"]
    assert outbox_to(app, world.member.owner_email) == []
    row = subscription(app, body["id"])
    assert row.paused_reason == "no access" and row.next_send_at is None
    detail = client.get(team.url(f"/subscriptions/{body['id']}"), headers=world.acme.headers)
    assert detail.get_json()["sends"][0]["reason"] == "no access"


def test_a_private_dashboard_again_stops_the_others_mail(app, client, team: Team):
    world = team.world
    body = subscribe(client, team, world.member).get_json()
    private = client.post(team.url("/make-private"), headers=world.acme.headers)
    assert private.status_code == 200
    _send_now(client, team, world.acme, body["id"])
    assert run_sends(app) == ["skipped"]
    assert outbox_to(app, world.member.owner_email) == []


def test_unsubscribe_with_one_click_and_no_session(app, client, team: Team):
    world = team.world
    body = subscribe(client, team, world.member).get_json()
    _send_now(client, team, world.member, body["id"])
    run_sends(app)
    (mail,) = outbox_to(app, world.member.owner_email)
    link = re.search(r"Unsubscribe \(one click, no sign-in\): (\S+)", mail.text).group(1)
    path = urlsplit(link).path
    anonymous = app.test_client()
    page = anonymous.get(path)
    assert page.status_code == 200 and b"Unsubscribe" in page.data
    assert subscription(app, body["id"]) is not None  # a GET changes nothing
    done = anonymous.post(path)  # what the button and RFC 8058's client POST do
    assert done.status_code == 200 and b"You are unsubscribed" in done.data
    assert subscription(app, body["id"]) is None
    assert anonymous.post(path).status_code == 200  # twice: still fine
    tampered = path[:-3] + ("AAA" if not path.endswith("AAA") else "BBB")
    refused = anonymous.post(tampered)
    assert refused.status_code == 400
    assert b"not valid" in refused.data and str(body["id"]).encode() not in refused.data


def test_the_due_run_across_a_dst_change_sends_once_per_local_day(app, client, team: Team):
    """A daily 02:00 Berlin subscription, the due pass run every 20 minutes from
    27 to 31 March 2026 (the clocks jump 02:00 -> 03:00 on the 29th): one send per
    local day, at 01:00 UTC while winter time holds (the 29th included: 03:00 CEST),
    then 00:00 UTC."""
    body = subscribe(client, team, team.world.member, hour=2).get_json()
    start = datetime(2026, 3, 27, 12, tzinfo=UTC)
    with app.app_context():
        row = db.session.get(Subscription, uuid.UUID(body["id"]))
        row.next_send_at = service.next_send_at(db.session.get(Org, row.org_id), row, start)
        db.session.commit()
        now = start
        while now < datetime(2026, 3, 31, 12, tzinfo=UTC):
            service.run_due(now)
            db.session.commit()
            now += timedelta(minutes=20)
        due = db.session.scalars(select(SubscriptionSend.due_at).order_by(SubscriptionSend.due_at))
        assert list(due) == [
            datetime(2026, 3, 28, 1, tzinfo=UTC),
            datetime(2026, 3, 29, 1, tzinfo=UTC),
            datetime(2026, 3, 30, 0, tzinfo=UTC),
            datetime(2026, 3, 31, 0, tzinfo=UTC),
        ]


def test_charts_and_time_widgets_are_summarized_by_their_top_rows(app, client, team: Team):
    """Composed without the PDF (drawing charts takes Chromium seconds; the PDF is
    tested elsewhere)."""
    world = team.world
    add_widget(client, world.acme, team.dashboard_id, title="Created", chart_type="bar",
               dimension="created", interval="week")  # fmt: skip
    add_widget(client, world.acme, team.dashboard_id, title="By kind", chart_type="pie",
               dimension="kind")  # fmt: skip
    body = subscribe(client, team, world.acme).get_json()
    with app.app_context():
        row = db.session.get(Subscription, uuid.UUID(body["id"]))
        mail = mailing.compose(row, db.session.get(Account, row.account_id), with_pdf=False)
    assert "Week of " in mail.text
    assert re.search(r"- Bug: \d+ <http", mail.text)
    assert mail.attachments == []
