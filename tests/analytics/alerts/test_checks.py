"""Alerts end to end through the API, the check the scheduled job runs, and the
outbox (no SMTP server set) or a real SMTP server: a mail when the condition starts to
hold and not at every check, a "resolved" mail when asked, muting, the "changes by"
arithmetic, and the creator's permissions bounding both the figure and who is mailed."""

from __future__ import annotations

import re

from tests.analytics.alerts.conftest import (
    Team,
    add_tasks,
    alert_row,
    archive,
    configure,
    history,
    outbox_to,
    parse,
    run_checks,
)
from tests.factories import login
from workspace.analytics.alerts.check import holds
from workspace.auth.membership import deactivate_member
from workspace.core.orgs import active_membership
from workspace.extensions import db


def _drill_titles(client, app, link: str) -> str:
    """The page the mail's link opens, as the creator sees it."""
    base = app.config["BASE_URL"].rstrip("/")
    assert link.startswith(base + "/")
    path = link[len(base) :]
    page = client.get(path)
    assert page.status_code == 200, path
    return page.get_data(as_text=True)


def test_a_crossing_mails_once_with_value_threshold_and_the_tasks(app, client, team: Team):
    world = team.world
    made = team.alert(client, name="Open urgent bugs", threshold=2, notify_resolved=True)
    assert made.status_code == 201, made.get_json()
    alert_id = made.get_json()["id"]
    add_tasks(app, world, 1)
    run_checks(app)
    assert outbox_to(app, world.acme.owner_email) == []  # 1 is not above 2
    assert alert_row(app, alert_id).last_value == 1

    crossing = add_tasks(app, world, 2)
    add_tasks(app, world, 3, priority="high", prefix="Not urgent")
    run_checks(app)
    (mail,) = outbox_to(app, world.acme.owner_email)
    assert mail.subject == "Alert: Open urgent bugs is 3, above 2"
    assert "Value now: 3" in mail.text and "Previous check: 1" in mail.text
    link = re.search(r"The tasks counted: (\S+)", mail.text).group(1)
    login(client, world.acme.owner_email)
    page = _drill_titles(client, app, link)
    for title in crossing:
        assert title in page
    assert "Not urgent" not in page and "Login fails" not in page
    assert alert_row(app, alert_id).state == "firing"

    # Still above: no new mail.
    add_tasks(app, world, 1)
    run_checks(app)
    assert len(outbox_to(app, world.acme.owner_email)) == 1

    # Back below, with "notify when resolved": one resolved mail.
    archive(app, crossing)
    run_checks(app)
    mails = outbox_to(app, world.acme.owner_email)
    assert len(mails) == 2
    assert mails[1].subject == "Resolved: Open urgent bugs is 2, no longer above 2"
    kinds = [(e.kind, e.value, e.sent_to) for e in history(app, alert_id)]
    assert kinds == [("fired", 3, [world.acme.owner_email]),
                     ("resolved", 2, [world.acme.owner_email])]  # fmt: skip


def test_the_mail_goes_through_a_real_smtp_server(mail_app, client, team: Team, smtp_servers):
    world = team.world
    configure(mail_app, smtp_servers.plain, "none")
    assert team.alert(client, threshold=0).status_code == 201
    # The server lives for the session: count only what this test makes it receive.
    before = len(smtp_servers.received.to(world.acme.owner_email))
    add_tasks(mail_app, world, 1)
    run_checks(mail_app)
    (raw,) = smtp_servers.received.to(world.acme.owner_email)[before:]
    message = parse(raw)
    assert message["Subject"] == "Alert: Open urgent bugs is 1, above 0"
    html = message.get_body(("html",)).get_content()
    links = re.findall(r'href="([^"]+)"', html)
    assert links and all(link.startswith(mail_app.config["BASE_URL"]) for link in links)


def test_muted_alerts_are_checked_and_recorded_but_send_nothing(app, client, team: Team):
    world = team.world
    alert_id = team.alert(client, threshold=0, notify_resolved=True).get_json()["id"]
    muted = client.post(world.acme.url(f"/alerts/{alert_id}/mute"), json={"period": "day"},
                        headers=world.acme.headers)  # fmt: skip
    assert muted.status_code == 200 and muted.get_json()["muted_until"]
    titles = add_tasks(app, world, 2)
    run_checks(app)
    assert outbox_to(app, world.acme.owner_email) == []
    (event,) = history(app, alert_id)
    assert (event.kind, event.value, event.sent_to) == ("fired", 2, [])
    assert event.note == "Muted: nothing sent."
    unmuted = client.post(world.acme.url(f"/alerts/{alert_id}/unmute"), headers=world.acme.headers)
    assert unmuted.get_json()["muted"] is False
    archive(app, titles)
    run_checks(app)
    (resolved,) = outbox_to(app, world.acme.owner_email)
    assert resolved.subject.startswith("Resolved: ")


def test_changes_by_percent_against_the_previous_check(app, client, team: Team):
    world = team.world
    bad = team.alert(client, condition="change", threshold=0)
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "threshold"
    alert_id = team.alert(client, condition="change", threshold=50).get_json()["id"]
    run_checks(app)  # 0: the first value, nothing to compare with
    assert outbox_to(app, world.acme.owner_email) == []
    add_tasks(app, world, 2)
    run_checks(app)  # 0 -> 2: from 0 any change counts
    (first,) = outbox_to(app, world.acme.owner_email)
    assert first.subject == "Alert: Open urgent bugs is 2, up from 0 (a change of 50% or more)"
    add_tasks(app, world, 1)
    run_checks(app)  # 2 -> 3: 50%, still holds: no second mail
    assert len(outbox_to(app, world.acme.owner_email)) == 1
    add_tasks(app, world, 1)
    run_checks(app)  # 3 -> 4: 33%: stops holding (no resolved mail asked)
    assert alert_row(app, alert_id).state == "ok"
    add_tasks(app, world, 2)
    run_checks(app)  # 4 -> 6: 50% again
    mails = outbox_to(app, world.acme.owner_email)
    assert len(mails) == 2 and mails[1].subject.endswith("is 6, up 50% (at least 50%)")
    assert [e.kind for e in history(app, alert_id)] == ["fired", "resolved", "fired"]
    assert history(app, alert_id)[1].note.startswith("No mail")


def test_the_change_arithmetic():
    assert not holds("change", 10, 5, None)
    assert not holds("change", 10, 0, 0)
    assert holds("change", 10, 1, 0)
    assert holds("change", 50, 5, 10) and not holds("change", 51, 5, 10)
    assert holds("change", 25, 12.5, 10) and not holds("change", 26, 12.5, 10)
    assert holds("above", 2, 3, None) and not holds("above", 3, 3, None)
    assert holds("below", 3, 2, None) and not holds("below", 2, 2, None)


def test_the_figure_is_the_creators(app, client, team: Team):
    """``currentUser()`` in the widget is the creator: Mia's alert counts her bugs."""
    world = team.world
    from tests.factories import add_widget

    mine = add_widget(client, world.acme, team.dashboard_id, title="My urgent bugs",
                      chart_type="number", metric="open",
                      filter="priority = urgent AND assignee = currentUser()")  # fmt: skip
    hers = team.alert(client, world.member, widget_id=mine["id"], threshold=0)
    assert hers.status_code == 201, hers.get_json()
    add_tasks(app, world, 3, assignee_id=world.acme.owner_id)
    add_tasks(app, world, 1, assignee_id=world.member.owner_id, prefix="Hers")
    run_checks(app)
    (mail,) = outbox_to(app, world.member.owner_email)
    assert mail.subject == "Alert: My urgent bugs is 1, above 0"
    assert outbox_to(app, world.acme.owner_email) == []


def test_recipients_must_read_at_send_time_and_a_creator_who_left_pauses(app, client, team):
    world = team.world
    made = team.alert(client, world.member, threshold=0,
                      recipient_ids=[str(world.acme.owner_id)])  # fmt: skip
    assert made.status_code == 201, made.get_json()
    alert_id = made.get_json()["id"]
    add_tasks(app, world, 1)
    run_checks(app)
    assert len(outbox_to(app, world.member.owner_email)) == 1
    assert len(outbox_to(app, world.acme.owner_email)) == 1

    with app.app_context():
        member = active_membership(world.acme.org_id, world.member.owner_id)
        deactivate_member(member, actor_id=world.acme.owner_id)
        db.session.commit()
    run_checks(app)
    row = alert_row(app, alert_id)
    assert (row.state, row.paused_reason, row.next_check_at) == ("paused", "no access", None)
    assert history(app, alert_id)[-1].kind == "paused"
    add_tasks(app, world, 5)
    run_checks(app)
    assert len(outbox_to(app, world.acme.owner_email)) == 1  # nothing more


def test_the_schedule_starts_the_job_that_checks(app, client, team: Team, monkeypatch):
    """``alerts.check`` runs every ALERTS_CHECK_SECONDS, claimed once per period, and
    its job checks the due alerts; an alert is not due again before its interval."""
    from sqlalchemy import select

    from workspace.jobs import runner
    from workspace.jobs.models import Job
    from workspace.jobs.schedule import fire_due
    from workspace.types import utcnow

    monkeypatch.setitem(app.config, "ALERTS_CHECK_SECONDS", 60)
    world = team.world
    alert_id = team.alert(client, threshold=0).get_json()["id"]
    add_tasks(app, world, 1)
    with app.app_context():
        now = utcnow()
        assert "alerts.check" in fire_due(now, "scheduler-a")
        assert "alerts.check" not in fire_due(now, "scheduler-b")
        job_id = db.session.scalar(select(Job.id).where(Job.kind == "alerts.check"))
        db.session.commit()
    runner.run(app, str(job_id))
    assert len(outbox_to(app, world.acme.owner_email)) == 1
    row = alert_row(app, alert_id)
    assert row.state == "firing" and row.next_check_at > row.last_checked_at
    with app.app_context():
        from workspace.analytics.alerts import check

        assert check.run_due(utcnow())["checked"] == 0  # its 15 minutes are not up
        db.session.rollback()
    login(client, world.acme.owner_email)
    page = client.get(f"/o/{world.acme.slug}/dashboards/{team.dashboard_id}")
    assert f"/dashboards/{team.dashboard_id}/alerts/new" in page.get_data(as_text=True)


def test_a_dashboard_made_private_pauses_its_readers_alerts(app, client, team: Team):
    """Mia's alert on the owner's dashboard stops when the owner makes it private: her
    access is read at each check, so the figure never reaches what she cannot see."""
    world = team.world
    alert_id = team.alert(client, world.member, threshold=0).get_json()["id"]
    private = client.post(world.url(f"/dashboards/{team.dashboard_id}/make-private"),
                          headers=world.acme.headers)  # fmt: skip
    assert private.status_code == 200, private.get_json()
    add_tasks(app, world, 2)
    run_checks(app)
    assert outbox_to(app, world.member.owner_email) == []
    row = alert_row(app, alert_id)
    assert (row.state, row.paused_reason) == ("paused", "no access")
    login(client, world.member.owner_email)
    listing = client.get(f"/o/{world.acme.slug}/alerts").get_data(as_text=True)
    assert "paused: no access" in listing
    assert (
        client.get(f"/o/{world.acme.slug}/dashboards")
        .get_data(as_text=True)
        .count(f"/o/{world.acme.slug}/alerts")
    )
