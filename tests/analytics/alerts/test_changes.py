"""Changing an alert (docs/delivery.md#changing-an-alert): through the API and the
page, a new rule starting again at ok and mailing when it holds, a new name or
interval keeping the state, a paused alert resuming once its creator reads the
dashboard again, and the refusals (another dashboard, a widget not on it, bad input)."""

from __future__ import annotations

from tests.analytics.alerts.conftest import (
    Team,
    add_tasks,
    alert_row,
    history,
    outbox_to,
    run_checks,
)
from tests.factories import add_widget, login, new_dashboard


def _put(client, team: Team, alert_id: str, who=None, **body):
    who = who or team.world.acme
    body = {"widget_id": team.widget_id, "condition": "above", "threshold": 2, **body}
    return client.put(who.url(f"/alerts/{alert_id}"), json=body, headers=who.headers)


def test_a_new_threshold_starts_again_and_mails_when_it_holds(app, client, team: Team):
    world = team.world
    alert_id = team.alert(client, name="Urgent bugs", threshold=2).get_json()["id"]
    add_tasks(app, world, 3)
    run_checks(app)
    assert [m.subject for m in outbox_to(app, world.acme.owner_email)] == [
        "Alert: Urgent bugs is 3, above 2"
    ]
    # Still above the new threshold: the changed rule mails again at the next check.
    changed = _put(client, team, alert_id, name="Urgent bugs", threshold=1)
    assert changed.status_code == 200, changed.get_json()
    assert (changed.get_json()["state"], changed.get_json()["threshold"]) == ("ok", 1)
    assert changed.get_json()["last_value"] == 3  # the same figure: its value stays
    run_checks(app)
    assert outbox_to(app, world.acme.owner_email)[-1].subject == "Alert: Urgent bugs is 3, above 1"
    # A new name and interval only: the state stays, nothing is sent again.
    renamed = _put(client, team, alert_id, name="Bugs on fire", threshold=1, interval_minutes=60)
    assert (renamed.get_json()["state"], renamed.get_json()["name"]) == ("firing", "Bugs on fire")
    run_checks(app)
    assert len(outbox_to(app, world.acme.owner_email)) == 2
    kinds = [(e.kind, e.note) for e in history(app, alert_id)]
    assert ("edited", "Changed: threshold") in kinds
    assert ("edited", "Changed: name, interval minutes") in kinds


def test_another_widget_forgets_the_last_value(app, client, team: Team):
    world = team.world
    alert_id = team.alert(client, condition="change", threshold=50).get_json()["id"]
    add_tasks(app, world, 2)
    run_checks(app)
    assert alert_row(app, alert_id).last_value == 2
    moved = _put(client, team, alert_id, widget_id=team.by_priority_id, category="Urgent",
                 condition="change", threshold=50)  # fmt: skip
    assert moved.status_code == 200, moved.get_json()
    assert (moved.get_json()["last_value"], moved.get_json()["category"]) == (None, "Urgent")
    run_checks(app)  # the first check of the new figure: nothing to compare with
    assert outbox_to(app, world.acme.owner_email) == []
    assert alert_row(app, alert_id).last_value == 2


def test_a_paused_alert_resumes_when_its_creator_reads_the_dashboard_again(app, client, team: Team):
    world = team.world
    alert_id = team.alert(client, world.member, threshold=0).get_json()["id"]
    dashboard = world.url(f"/dashboards/{team.dashboard_id}")
    client.post(f"{dashboard}/make-private", headers=world.acme.headers)
    add_tasks(app, world, 2)
    run_checks(app)
    assert alert_row(app, alert_id).state == "paused"
    # While the dashboard is private the alert cannot be changed: it is not hers to read.
    assert _put(client, team, alert_id, world.member, threshold=0).status_code == 404
    assert client.post(f"{dashboard}/publish", headers=world.acme.headers).status_code == 200
    resumed = _put(client, team, alert_id, world.member, threshold=0)
    assert resumed.status_code == 200, resumed.get_json()
    assert (resumed.get_json()["state"], resumed.get_json()["paused_reason"]) == ("ok", None)
    run_checks(app)
    (mail,) = outbox_to(app, world.member.owner_email)
    assert mail.subject.endswith("is 2, above 0")
    assert [e.kind for e in history(app, alert_id)][-3:] == ["paused", "resumed", "fired"]


def test_refusals_say_what_to_fix_and_change_nothing(app, client, team: Team):
    world = team.world
    alert_id = team.alert(client, threshold=2).get_json()["id"]
    other = new_dashboard(client, world.acme, name="Other")
    stranger = add_widget(client, world.acme, other["id"], title="Elsewhere",
                          chart_type="number", metric="open")  # fmt: skip
    cases = [
        ({"dashboard_id": other["id"]}, 422, "dashboard_id"),
        ({"widget_id": stranger["id"]}, 404, None),
        ({"threshold": "lots"}, 400, "threshold"),
        ({"condition": "change", "threshold": 0}, 422, "threshold"),
        ({"interval_minutes": 1}, 400, "interval_minutes"),
    ]
    for body, status, field in cases:
        answer = _put(client, team, alert_id, **body)
        assert answer.status_code == status, (body, answer.get_json())
        if field:
            assert field in str(answer.get_json()), answer.get_json()
    row = alert_row(app, alert_id)
    assert (row.threshold, row.condition, str(row.widget_id)) == (2, "above", team.widget_id)
    assert history(app, alert_id) == []


def test_the_page_changes_an_alert_and_keeps_what_was_typed_on_error(app, client, team):
    world = team.world
    alert_id = team.alert(client, name="Urgent bugs", threshold=2,
                          recipient_ids=[str(world.member.owner_id)]).get_json()["id"]  # fmt: skip
    login(client, world.acme.owner_email)
    url = f"/o/{world.acme.slug}/alerts/{alert_id}/edit"
    form = client.get(url).get_data(as_text=True)
    assert "Change an alert" in form and 'value="Urgent bugs"' in form
    assert f'value="{world.member.owner_id}" checked' in form  # who it mails, as it is
    listing = client.get(f"/o/{world.acme.slug}/alerts").get_data(as_text=True)
    assert url in listing
    wrong = client.post(url, data={"widget_id": team.widget_id, "condition": "change",
                                   "threshold": "0", "name": "Kept"})  # fmt: skip
    assert wrong.status_code == 400
    page = wrong.get_data(as_text=True)
    assert "greater than 0" in page and 'value="Kept"' in page
    saved = client.post(url, data={"widget_id": team.widget_id, "condition": "below",
                                   "threshold": "7", "interval_minutes": "30"})  # fmt: skip
    assert saved.status_code == 303
    row = alert_row(app, alert_id)
    assert (row.condition, row.threshold, row.interval_minutes) == ("below", 7, 30)
    assert row.recipients == [] and row.name == "Open urgent bugs"  # unticked; the title
