"""Bad input gets the right 4xx naming the field; the caps hold; two checks of one
alert send once; the history keeps its newest rows; the OpenAPI document lists the
routes."""

from __future__ import annotations

import json
import uuid

from sqlalchemy import func, select
from sqlalchemy.orm.attributes import set_committed_value

from tests.analytics.alerts.conftest import Team, add_tasks, history, outbox_to
from tests.factories import add_widget, login, new_dashboard
from workspace.analytics.alerts import check, service
from workspace.analytics.alerts.models import Alert, AlertEvent
from workspace.extensions import db
from workspace.types import utcnow

ZERO = "00000000-0000-0000-0000-000000000000"


WRONG = [
    ({"threshold": "ten"}, "threshold"),
    ({"threshold": None}, "threshold"),
    ({"threshold": 1e13}, "threshold"),
    ({"condition": "sideways"}, "condition"),
    ({"interval_minutes": 4}, "interval_minutes"),
    ({"interval_minutes": 1441}, "interval_minutes"),
    ({"interval_minutes": "often"}, "interval_minutes"),
    ({"widget_id": "not-an-id"}, "widget_id"),
    ({"notify_resolved": "yes"}, "notify_resolved"),
    ({"recipient_ids": "everyone"}, "recipient_ids"),
    ({"colour": "red"}, "colour"),
]


def test_wrong_types_are_400_naming_the_field(client, team: Team):
    for change, field in WRONG:
        answer = team.alert(client, **change)
        assert answer.status_code == 400, (change, answer.get_json())
        assert field in {e["field"] for e in answer.get_json()["errors"]}


def test_a_threshold_that_is_no_number_is_refused(client, team: Team):
    world = team.world
    for literal in ("NaN", "Infinity", "-Infinity"):
        fields = {"dashboard_id": team.dashboard_id, "widget_id": team.widget_id,
                  "condition": "above", "threshold": 1}  # fmt: skip
        body = json.dumps(fields).replace("1}", f"{literal}}}")
        answer = client.post(world.acme.url("/alerts"), data=body, headers=world.acme.headers,
                             content_type="application/json")  # fmt: skip
        assert answer.status_code == 400, (literal, answer.get_json())
        assert answer.get_json()["errors"][0]["field"] == "threshold"


def test_unknown_or_unreachable_ids_are_404(app, client, team: Team):
    world = team.world
    other = new_dashboard(client, world.acme, name="Private")
    elsewhere = add_widget(client, world.acme, other["id"], title="Elsewhere", chart_type="number")
    globex = new_dashboard(client, world.globex, name="Globex")
    cases = [
        (world.acme, {"dashboard_id": ZERO}),
        (world.acme, {"widget_id": ZERO}),
        (world.acme, {"widget_id": elsewhere["id"]}),  # a widget of another dashboard
        (world.acme, {"dashboard_id": globex["id"]}),  # another org's dashboard
        (world.member, {"dashboard_id": other["id"], "widget_id": elsewhere["id"]}),  # private
        (world.acme, {"recipient_ids": [str(world.globex.owner_id)]}),  # not a member
    ]
    for who, change in cases:
        answer = team.alert(client, who, **change)
        assert answer.status_code == 404, (change, answer.get_json())
    for path in (f"/alerts/{ZERO}", f"/alerts/{ZERO}/mute"):
        assert client.post(world.acme.url(path), json={"period": "day"},
                           headers=world.acme.headers).status_code in (404, 405)  # fmt: skip
    assert (
        client.get(world.acme.url(f"/alerts/{ZERO}"), headers=world.acme.headers).status_code == 404
    )
    bad_mute = team.alert(client).get_json()["id"]
    answer = client.post(world.acme.url(f"/alerts/{bad_mute}/mute"), json={"period": "year"},
                         headers=world.acme.headers)  # fmt: skip
    assert answer.status_code == 400 and answer.get_json()["errors"][0]["field"] == "period"


def test_service_refusals_are_422_and_the_cap_409(app, client, team: Team, monkeypatch):
    for change, field in (({"condition": "change", "threshold": -5}, "threshold"),
                          ({"widget_id": team.by_priority_id, "category": "Urgent",
                            "condition": "above"}, None)):  # fmt: skip
        answer = team.alert(client, **change)
        if field is None:
            assert answer.status_code == 201, answer.get_json()
        else:
            assert answer.status_code == 422 and answer.get_json()["errors"][0]["field"] == field
    monkeypatch.setitem(app.config, "ALERTS_MAX_PER_MEMBER", 1)
    capped = team.alert(client)
    assert capped.status_code == 409 and "most one may" in capped.get_json()["detail"]


def test_a_category_counts_that_row_only(app, client, team: Team):
    world = team.world
    made = team.alert(client, widget_id=team.by_priority_id, category="Urgent", threshold=1,
                      name="Urgent work")  # fmt: skip
    add_tasks(app, world, 2, kind="task")
    from tests.analytics.alerts.conftest import run_checks

    run_checks(app)
    (mail,) = outbox_to(app, world.acme.owner_email)
    assert mail.subject == "Alert: Urgent work is 2, above 1"
    assert len(history(app, made.get_json()["id"])) == 1


def test_two_checks_of_one_alert_send_once(app, client, team: Team):
    """Two workers that read the same due alert, or the same 'ok' state: the
    compare-and-set on next_check_at, then the one on the state, let one through."""
    world = team.world
    alert_id = team.alert(client, threshold=0).get_json()["id"]
    add_tasks(app, world, 1)
    with app.app_context():
        now = utcnow()
        alert = db.session.get(Alert, uuid.UUID(alert_id))
        due = alert.next_check_at
        assert check.claim(alert.id, due, now, 15)
        assert not check.claim(alert.id, due, now, 15)  # the second worker's claim
        assert check.check(alert, now) == "fired"
        # The second worker read the state before the first moved it.
        set_committed_value(alert, "state", "ok")
        assert check.check(alert, now) is None
        db.session.commit()
    assert len(outbox_to(app, world.acme.owner_email)) == 1
    assert [e.kind for e in history(app, alert_id)] == ["fired"]


def test_the_history_keeps_the_newest_rows(app, client, team: Team, monkeypatch):
    alert_id = team.alert(client).get_json()["id"]
    monkeypatch.setattr(service, "HISTORY", 3)
    with app.app_context():
        alert = db.session.get(Alert, uuid.UUID(alert_id))
        start = utcnow()
        from datetime import timedelta

        for n in range(5):
            service.record(alert, "error", start + timedelta(minutes=n), note=str(n))
        db.session.commit()
        count = db.session.scalar(select(func.count()).select_from(AlertEvent))
    assert count == 3
    assert [e.note for e in history(app, alert_id)] == ["2", "3", "4"]


def test_the_form_shows_errors_beside_fields_and_the_list_shows_state(app, client, team):
    world = team.world
    login(client, world.acme.owner_email)
    base = f"/o/{world.acme.slug}"
    new = f"{base}/dashboards/{team.dashboard_id}/alerts/new"
    assert client.get(f"{new}?widget_id=nonsense").status_code == 400
    assert client.get(f"{base}/dashboards/{ZERO}/alerts/new").status_code == 404
    chosen = client.get(f"{new}?widget_id={team.by_priority_id}").get_data(as_text=True)
    assert f'<option value="{team.by_priority_id}" selected>' in chosen
    page = client.post(f"{base}/dashboards/{team.dashboard_id}/alerts/new",
                       data={"widget_id": team.widget_id, "condition": "above",
                             "threshold": "lots"})  # fmt: skip
    assert page.status_code == 400
    text = page.get_data(as_text=True)
    assert 'id="f-threshold-error"' in text and 'value="lots"' in text
    made = client.post(f"{base}/dashboards/{team.dashboard_id}/alerts/new",
                       data={"widget_id": team.widget_id, "condition": "above",
                             "threshold": "0", "notify_resolved": "1"})  # fmt: skip
    assert made.status_code == 303
    # Before its first check an alert says so, not "ok" beside "not checked yet".
    unchecked = client.get(f"{base}/alerts").get_data(as_text=True)
    assert "Not checked yet" in unchecked and "<strong>ok</strong>" not in unchecked
    add_tasks(app, world, 4)
    from tests.analytics.alerts.conftest import run_checks

    run_checks(app)
    listing = client.get(f"{base}/alerts").get_data(as_text=True)
    assert "Open urgent bugs" in listing and "firing" in listing and "Last value: 4" in listing


def test_the_openapi_document_lists_the_alert_routes(client):
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    alerts = {p for p in paths if "/alerts" in p}
    assert {"/api/v1/orgs/{org_id}/alerts", "/api/v1/orgs/{org_id}/alerts/{alert_id}",
            "/api/v1/orgs/{org_id}/alerts/{alert_id}/mute"} <= alerts  # fmt: skip
    schemas = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    assert {"threshold", "condition", "dashboard_id"} <= set(schemas["AlertIn"]["properties"])


def test_two_workers_racing_on_one_alert_send_once(app, client, team: Team):
    """Two threads, each with its own session, read the alert in state "ok" and check
    it at the same moment: the conditional update on the state lets one send."""
    import threading

    world = team.world
    alert_id = uuid.UUID(team.alert(client, threshold=0).get_json()["id"])
    add_tasks(app, world, 1)
    barrier, results, errors = threading.Barrier(2), [], []
    now = utcnow()

    def worker() -> None:
        try:
            with app.app_context():
                alert = db.session.get(Alert, alert_id)
                assert alert.state == "ok"
                barrier.wait(timeout=10)
                results.append(check.check(alert, now))
                db.session.commit()
        except Exception as exc:  # shown by the assertion below
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert sorted(results, key=str) == [None, "fired"]
    assert len(outbox_to(app, world.acme.owner_email)) == 1
    assert [e.kind for e in history(app, alert_id)] == ["fired"]


def test_a_category_the_widget_cannot_have_is_refused_with_the_ones_it_can(client, team: Team):
    """A typo ("Urgnet") counted 0 for ever: a 'below' alert fired at once and an
    'above' one never did, without a word. Now it is refused, naming the rows."""
    world = team.world
    typo = team.alert(client, widget_id=team.by_priority_id, category="Urgnet")
    assert typo.status_code == 422
    (error,) = typo.get_json()["errors"]
    assert error["field"] == "category" and "no priority named “Urgnet”" in error["message"]
    assert "urgent" in error["message"] and "low" in error["message"]
    # A row with no tasks today may be named (Acme has none of priority "none"), in any case.
    assert team.alert(client, widget_id=team.by_priority_id, category="NONE").status_code == 201
    # Open dimensions: a state name, a member by name, a project by name or id.
    named = [("status", "In Progress"), ("assignee", "Unassigned"), ("project", "Operations"),
             ("project", str(world.ops_id))]  # fmt: skip
    for dimension, category in named:
        widget = add_widget(client, world.acme, team.dashboard_id, title=dimension,
                            chart_type="table", dimension=dimension)  # fmt: skip
        made = team.alert(client, widget_id=widget["id"], category=category)
        assert made.status_code == 201, (dimension, made.get_json())
        wrong = team.alert(client, widget_id=widget["id"], category="Nobody at all")
        assert wrong.status_code == 422, dimension
